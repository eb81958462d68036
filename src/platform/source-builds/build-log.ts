// A build's log in the artifact bucket: numbered chunks written as the build runs (the operator), read and
// followed by the API. S3 has no append, so a live log is a series of small objects; `end.json` says the build
// is over, so a follower knows when to stop. Kept as long as the SourceBuild is (deleted with it), whole while the
// build is one of its app's newest few, then its end only (log-retention.ts).
import type { ObjectStore } from '../../object-store/object-store.ts';
import { TRIMMED_LOG_NOTICE } from './log-retention.ts';

/** Most bytes one build logs; beyond, one line says the rest was left out. */
export const MAX_BUILD_LOG_BYTES = 4 * 1024 * 1024;
/** A chunk is written once it holds this much, or after {@link FLUSH_INTERVAL_MS}. */
const CHUNK_BYTES = 64 * 1024;
export const FLUSH_INTERVAL_MS = 500;

/** Where one build's log lives: `source-builds/<namespace>/<build>/log/`. */
export function buildLogPrefix(namespace: string, build: string): string {
  return `${buildObjectsPrefix(namespace, build)}log/`;
}

/** Every object of one build (its log, its staged source and artifact). */
export function buildObjectsPrefix(namespace: string, build: string): string {
  return `source-builds/${namespace}/${build}/`;
}

const chunkKey = (prefix: string, index: number) => `${prefix}${String(index).padStart(8, '0')}.txt`;
/** A chunk's number, from its key. */
const chunkIndex = (key: string) => Number(key.slice(-12, -4));
const endKey = (prefix: string) => `${prefix}end.json`;

/** How a log ended, as its last object says. */
export interface LogEnd {
  readonly state: string;
  readonly message?: string | undefined;
}

/**
 * Writes a build's output as it comes: lines are buffered and flushed as chunks of at most 64 KiB, every half
 * second or once 64 KiB wait, so a follower sees them within a second. A failed write is retried with the next flush (the chunk keeps its
 * number), and `finish` writes what is left, then the end marker.
 */
export class BuildLogWriter {
  readonly #store: ObjectStore;
  readonly #prefix: string;
  #pending: string[] = [];
  #pendingBytes = 0;
  /** Bytes of the chunk being uploaded: counted against the bound as much as those written. */
  #uploading = 0;
  #written = 0;
  #next = 0;
  #truncated = false;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  /** Why the last upload failed, until one succeeds: what `finish` throws. */
  #failure: Error | undefined;
  #abandoned = false;
  #ended = false;

  constructor(store: ObjectStore, namespace: string, build: string) {
    this.#store = store;
    this.#prefix = buildLogPrefix(namespace, build);
  }

  /** Adds output (any text; lines need not be whole). */
  write(text: string): void {
    if (this.#truncated) return;
    const bytes = Buffer.byteLength(text);
    if (this.#written + this.#uploading + this.#pendingBytes + bytes > MAX_BUILD_LOG_BYTES) {
      this.#truncated = true;
      this.#pending.push(`\n[cloudwright] the log passed ${MAX_BUILD_LOG_BYTES} bytes; the rest of the build's output is left out\n`);
    } else {
      this.#pending.push(text);
      this.#pendingBytes += bytes;
    }
    if (this.#pendingBytes >= CHUNK_BYTES) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
  }

  /** Writes what is buffered as the next chunk (one flush at a time). */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flushOnce());
    return this.#flushing;
  }

  async #flushOnce(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0 || this.#abandoned) return;
    // Taken out before the upload, at most a chunk's bytes (cut between characters): output written while it is in
    // flight, or past the chunk, goes into the next. Bounded chunks let a reader take a log a few at a time.
    const all = Buffer.from(this.#pending.join(''));
    let cut = Math.min(all.length, CHUNK_BYTES);
    while (cut > 0 && cut < all.length && ((all[cut] ?? 0) & 0xc0) === 0x80) cut -= 1;
    const chunk = all.subarray(0, cut);
    this.#pending = cut < all.length ? [all.subarray(cut).toString('utf8')] : [];
    this.#pendingBytes = all.length - cut;
    this.#uploading = cut;
    try {
      await this.#store.put(chunkKey(this.#prefix, this.#next), chunk, { contentType: 'text/plain; charset=utf-8' });
      this.#failure = undefined;
    } catch (err) {
      this.#failure = err instanceof Error ? err : new Error(String(err));
      this.#pending = [chunk.toString('utf8'), ...this.#pending];
      this.#pendingBytes += cut;
      if (!this.#abandoned) this.#timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
      return; // kept, and tried again with the next flush
    } finally {
      this.#uploading = 0;
    }
    this.#written += cut;
    this.#next += 1;
    if (this.#abandoned) return;
    if (this.#pendingBytes >= CHUNK_BYTES) void this.flush();
    else if (this.#pending.length > 0) this.#timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
  }

  /** Whether `finish` was called (its last line is written, even if the end marker is still to be). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Writes the rest and the end marker; throws when the bucket refuses (calling it again retries). */
  async finish(end: LogEnd): Promise<void> {
    this.#ended = true;
    while (this.#pending.length > 0 || this.#uploading > 0) {
      await this.flush();
      if (this.#failure !== undefined) throw this.#failure;
    }
    clearTimeout(this.#timer);
    await this.#store.put(endKey(this.#prefix), JSON.stringify(end), { contentType: 'application/json' });
  }

  /**
   * Writes nothing more (the build's runner went away, or the build itself: a later run writes the log again); the
   * promise settles once an upload already under way has.
   */
  abandon(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#truncated = true;
    // Nothing more goes to the bucket: the build's objects are about to be deleted, and a chunk written after
    // would outlive them (or show in the log of a build made again under the same name).
    this.#abandoned = true;
    this.#pending = [];
    this.#pendingBytes = 0;
    // Settles once the chunk being uploaded, if any, is in the bucket or refused: delete the log's objects after it.
    return this.#flushing;
  }
}

/** A part of a log read from `after` on. */
export interface LogRead {
  /** The text of the chunks read, in order, with {@link TRIMMED_LOG_NOTICE} where chunks were removed. */
  readonly text: string;
  /** Pass it back as `after` to read on. */
  readonly cursor: string | undefined;
  /** Set once the build is over and every chunk was read. */
  readonly end: LogEnd | undefined;
}

/**
 * Reads the chunks after `cursor` (a chunk key; none: from the start), at most `maxChunks` of them. Chunks are
 * numbered from 0 with no gap as written, so a missing number is a part removed by the log's trimming: the reader
 * is told there, also while a trimming is under way.
 */
export async function readBuildLog(store: ObjectStore, namespace: string, build: string, cursor?: string, maxChunks = 64): Promise<LogRead> {
  const prefix = buildLogPrefix(namespace, build);
  const page = await store.list(prefix, { ...(cursor ? { startAfter: cursor } : {}), limit: maxChunks + 1 });
  const chunks = page.items.map((i) => i.key).filter((key) => key.endsWith('.txt'));
  const hasEnd = page.items.some((i) => i.key === endKey(prefix));
  const read = chunks.slice(0, maxChunks);
  const texts = await Promise.all(read.map(async (key) => store.get(key)));
  let expected = cursor ? chunkIndex(cursor) + 1 : 0;
  const parts: string[] = [];
  read.forEach((key, i) => {
    const got = texts[i];
    // A chunk gone between the listing and its read was removed as well.
    const removed = chunkIndex(key) > expected || got?.kind !== 'object';
    if (removed && parts.at(-1) !== TRIMMED_LOG_NOTICE) parts.push(TRIMMED_LOG_NOTICE);
    if (got?.kind === 'object') parts.push(Buffer.from(got.body).toString('utf8'));
    expected = chunkIndex(key) + 1;
  });
  const text = parts.join('');
  const complete = hasEnd && read.length === chunks.length;
  let end: LogEnd | undefined;
  if (complete) {
    const got = await store.get(endKey(prefix));
    if (got?.kind === 'object') end = JSON.parse(Buffer.from(got.body).toString('utf8')) as LogEnd;
  }
  return { text, cursor: read.at(-1) ?? cursor, end };
}

/** Deletes every object of one build (its log, staged source and artifact). */
export async function deleteBuildObjects(store: ObjectStore, namespace: string, build: string): Promise<void> {
  await deletePrefix(store, buildObjectsPrefix(namespace, build));
}

/**
 * Deletes only the build's log, for a run followed again after an operator restart: the log is read again from
 * its start, while the output a run that ended meanwhile put in the bucket is still to be packed.
 */
export async function deleteBuildLog(store: ObjectStore, namespace: string, build: string): Promise<void> {
  await deletePrefix(store, buildLogPrefix(namespace, build));
}

async function deletePrefix(store: ObjectStore, prefix: string): Promise<void> {
  for (;;) {
    const page = await store.list(prefix);
    if (page.items.length === 0) return;
    await Promise.all(page.items.map((i) => store.delete(i.key)));
  }
}
