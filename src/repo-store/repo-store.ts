// The repository store: every repository's state in one bucket, behind a write-ahead log whose commit point
// is a compare-and-swap of the repository's manifest. The git protocol, LFS and the JSON API sit on this.
import { randomUUID } from 'node:crypto';
import { register as defaultRegistry, type Registry } from 'prom-client';
import { PublicError } from '../errors.ts';
import type { ObjectStore, ObjectStream } from '../object-store/object-store.ts';
import { listAll } from '../object-store/list-all.ts';
import { decodeCheckpoint } from './checkpoint.ts';
import { HistoryUnavailableError, PublishContentionError, RepoBusyError, RepoExistsError, RepoNotFoundError, SeqOutOfRangeError } from './errors.ts';
import { HeadCache, type RepoHead } from './head-cache.ts';
import { KeyedMutex } from '../collections/keyed-mutex.ts';
import { checkpointKey, deletingKey, manifestKey, packIndexKey, packKey, pendingKey, repoPrefix } from './layout.ts';
import { isPackObject, type PackObject } from './pack-object.ts';
import type { LogEntry } from './log-entry.ts';
import { LogReader } from './log-reader.ts';
import { amendedManifest, encodeManifest, pristineManifest, type HeadAmendment } from './manifest.ts';
import { failureCounter, listPending, type PendingMarker } from './pending.ts';
import { publish, rollForward, type PublishContext, type PublishRequest, type PublishResult } from './publish.ts';
import { DEFAULT_MAX_REFS, isValidRefName, type ObjectFormat } from './refs.ts';
import { parseRepoPath, type RepoPath } from './repo-path.ts';
import { isSeq } from './seq.ts';
import { applyEntries, EMPTY_STATE, undoEntries, type RepoState } from './state.ts';

export interface RepoStoreOptions {
  store: ObjectStore;
  /**
   * `wal.freshness_ttl`: a read may answer from a head this process checked less than this long ago, with no
   * request. 0 (the default): every read revalidates, so a publish acknowledged anywhere is seen at once.
   */
  freshnessTtlMs?: number;
  /** Where `service_pending_marker_put_failures_total` goes; prom-client's default registry when absent. */
  registry?: Registry;
  now?: () => Date;
  /** What the decoded log entries kept in memory (they never change) may take, in bytes. Default {@link ENTRY_CACHE_BYTES}. */
  entryCacheBytes?: number;
  /** What the decoded heads kept in memory may take, in bytes. Default `HEAD_CACHE_BYTES` (head-cache.ts). */
  headCacheBytes?: number;
  /** Lost claim or CAS rounds before a publish gives up with `PublishContentionError`. Default 200. */
  maxPublishRounds?: number;
  /**
   * `quota.repository_max_refs`: the refs one repository may hold. A publish whose creates would pass it rejects them
   * (`too many refs`), checked against the state its entry commits on; updates and deletions always go through.
   * Default {@link DEFAULT_MAX_REFS}.
   */
  maxRefs?: number;
}

export interface CreateRepoOptions {
  objectFormat?: ObjectFormat;
  /** The target of HEAD. Default `refs/heads/main`. */
  headRef?: string;
}

/** One page of the log. `entries` start at `max(fromSeq, logStart)`: a later first seq than asked is a gap. */
export interface LogPage {
  readonly entries: readonly LogEntry[];
  readonly headSeq: number;
  readonly logStart: number;
  /** The `fromSeq` of the next page, when the head is further. */
  readonly next?: number;
}

const JSON_TYPE = 'application/json';
/** A deletion marker older than this was left by a deleter that died: creates go ahead again. */
export const DELETION_MARKER_TTL_MS = 10 * 60 * 1000;

/**
 * Repositories in a bucket. Any number of instances (processes) may share one bucket; each keeps a cache of
 * the heads it has seen and revalidates it on every read (one conditional GET, usually a 304). Repository
 * names are `owner/repo` (`InvalidRepoNameError` otherwise); a missing repository is `RepoNotFoundError`.
 */
/** What the decoded log entries one process keeps may take together (32 MiB: some 20,000 ordinary pushes'). */
export const ENTRY_CACHE_BYTES = 32 * 1024 * 1024;

export class RepoStore {
  readonly #store: ObjectStore;
  readonly #heads: HeadCache;
  readonly #log: LogReader;
  readonly #lock = new KeyedMutex();
  readonly #now: () => Date;
  readonly #registry: Registry;
  readonly #maxRounds: number;
  /** The refs one repository may hold (`RepoStoreOptions.maxRefs`). */
  readonly maxRefs: number;

  constructor(options: RepoStoreOptions) {
    this.#store = options.store;
    this.#now = options.now ?? (() => new Date());
    this.#heads = new HeadCache(options.store, {
      ttlMs: options.freshnessTtlMs ?? 0,
      clock: () => this.#now().getTime(),
      ...(options.headCacheBytes !== undefined ? { maxBytes: options.headCacheBytes } : {}),
    });
    this.#log = new LogReader(options.store, options.entryCacheBytes ?? ENTRY_CACHE_BYTES);
    this.#registry = options.registry ?? defaultRegistry;
    failureCounter(this.#registry);
    this.#maxRounds = options.maxPublishRounds ?? 200;
    this.maxRefs = options.maxRefs ?? DEFAULT_MAX_REFS;
  }

  /** Creates a pristine repository (seq 0, no refs, no packs); `RepoExistsError` if the name is taken. */
  async createRepo(repo: string, options: CreateRepoOptions = {}): Promise<RepoHead> {
    const path = parseRepoPath(repo);
    const headRef = options.headRef ?? 'refs/heads/main';
    if (!isValidRefName(headRef)) throw new PublicError(400, `"${headRef}" is not a valid ref name`);
    const manifest = pristineManifest({ repo: path.full, repoId: randomUUID(), objectFormat: options.objectFormat ?? 'sha1', headRef, now: this.#now() });
    // A deletion still sweeping the name would sweep the new repository's objects too (its pushes included).
    if (await this.#beingDeleted(path)) throw new RepoBusyError(path.full);
    const put = await this.#store.put(manifestKey(path), encodeManifest(manifest), { ifNoneMatch: '*', contentType: JSON_TYPE });
    if (put.kind !== 'written') throw new RepoExistsError(path.full);
    // One that started between the check and the write may sweep this manifest: undo it and refuse, rather
    // than acknowledge a repository that can vanish. (Nobody else can have written it: ours won If-None-Match.)
    if (await this.#beingDeleted(path)) {
      await this.#store.delete(manifestKey(path));
      throw new RepoBusyError(path.full);
    }
    const head: RepoHead = Object.freeze({ ...manifest, etag: put.etag });
    this.#heads.remember(path, head);
    return head;
  }

  /**
   * Deletes the repository: a deletion marker first (until it is gone, `createRepo` of the name is refused,
   * so the sweep cannot take a new incarnation's objects), then the manifest (from then on it does not exist,
   * and no CAS can succeed on it), then every object under its prefix, its maintenance marker, and last the
   * deletion marker. Deleting a missing repository succeeds. A publish racing the delete can leave objects
   * behind; they belong to no incarnation a later `createRepo` makes, and the next delete sweeps them. A
   * deleter that dies leaves its marker, which stops counting after {@link DELETION_MARKER_TTL_MS}.
   */
  async deleteRepo(repo: string): Promise<void> {
    const path = parseRepoPath(repo);
    await this.#store.put(deletingKey(path), JSON.stringify({ at: this.#now().toISOString() }), { contentType: JSON_TYPE });
    await this.#store.delete(manifestKey(path));
    this.#heads.forget(path);
    const batch: Promise<void>[] = [];
    for await (const item of listAll(this.#store, repoPrefix(path))) {
      batch.push(this.#store.delete(item.key));
      if (batch.length >= 16) await Promise.all(batch.splice(0));
    }
    await Promise.all(batch);
    await this.#store.delete(pendingKey(path));
    await this.#store.delete(deletingKey(path));
  }

  /** Whether a deletion of the name is under way: its marker exists and is younger than the TTL. */
  async #beingDeleted(path: RepoPath): Promise<boolean> {
    const marker = await this.#store.get(deletingKey(path));
    if (marker?.kind !== 'object') return false;
    let at = Number.NaN;
    try {
      at = Date.parse((JSON.parse(Buffer.from(marker.body).toString('utf8')) as { at?: string }).at ?? '');
    } catch {
      // Unreadable, so its age cannot be told: not ours, and no reason to refuse creates forever.
    }
    return Number.isFinite(at) && this.#now().getTime() - at < DELETION_MARKER_TTL_MS;
  }

  /**
   * The head: refs, live packs, seq. One request (a conditional GET) unless `freshnessTtlMs` allows none;
   * `fresh` always asks the store (a push must see every write acknowledged anywhere).
   */
  async readHead(repo: string, options: { fresh?: boolean } = {}): Promise<RepoHead> {
    return this.#heads.read(parseRepoPath(repo), options.fresh === true);
  }

  /**
   * Publishes a ref transaction (and the pack carrying its objects) as log entry head+1. Resolves only once
   * the manifest covers the entry: a `published` result is durable. Stale old values are rejected per ref
   * (`stale old value`), creates past `maxRefs` together (`too many refs`); deciding fast-forward and connectivity
   * is the caller's job, done before.
   */
  async publish(repo: string, request: PublishRequest): Promise<PublishResult> {
    return publish(this.#publishContext(), parseRepoPath(repo), request);
  }

  /**
   * Commits the log entries past the head that no manifest covers yet (their writers died between the log
   * entry and the manifest swap, or are about to swap), as the next publish would, and answers the head after
   * them. gc calls it first, so the packs those entries name count as live.
   */
  async rollForward(repo: string): Promise<RepoHead> {
    return rollForward(this.#publishContext(), parseRepoPath(repo));
  }

  #publishContext(): PublishContext {
    return { store: this.#store, heads: this.#heads, log: this.#log, lock: this.#lock, now: this.#now, registry: this.#registry, maxRounds: this.#maxRounds, maxRefs: this.maxRefs };
  }

  /**
   * Changes what maintenance owns in the manifest (the live pack set, the checkpoint pointer, `logStart`), or
   * HEAD's target (a retarget: no log entry, no event), by compare-and-swap, leaving refs and seq as the writers
   * left them. `amend` sees the current head of
   * incarnation `repoId` and answers the change, or `undefined` for none; it runs again after every lost swap
   * (a publish landed in between). Answers the head after the change.
   */
  async amendHead(repo: string, repoId: string, amend: (head: RepoHead) => HeadAmendment | undefined): Promise<RepoHead> {
    const path = parseRepoPath(repo);
    return this.#lock.run(path.full, async () => {
      for (let round = 0; round < this.#maxRounds; round++) {
        const head = await this.#heads.read(path, true);
        if (head.repoId !== repoId) throw new RepoNotFoundError(path.full);
        const change = amend(head);
        if (!change) return head;
        const next = amendedManifest(head, change, this.#now());
        const cas = await this.#store.put(manifestKey(path), encodeManifest(next), { ifMatch: head.etag, contentType: JSON_TYPE });
        if (cas.kind === 'written') {
          const after: RepoHead = Object.freeze({ ...next, etag: cas.etag });
          this.#heads.remember(path, after);
          return after;
        }
      }
      throw new PublishContentionError(path.full);
    });
  }

  /** Committed entries from `fromSeq` (at most `limit`, default 100). Never LISTs: the head bounds the log. */
  async listLog(repo: string, fromSeq: number, options: { limit?: number } = {}): Promise<LogPage> {
    const path = parseRepoPath(repo);
    const head = await this.#heads.read(path);
    const from = Math.max(fromSeq, head.logStart, 1);
    const to = Math.min(head.seq, from + (options.limit ?? 100) - 1);
    const entries = await this.#log.range(path, head.repoId, from, to);
    return { entries, headSeq: head.seq, logStart: head.logStart, ...(to < head.seq ? { next: to + 1 } : {}) };
  }

  /** The committed entry at `seq`, or `undefined` past the head or before the kept log. */
  async readEntry(repo: string, seq: number): Promise<LogEntry | undefined> {
    const path = parseRepoPath(repo);
    const head = await this.#heads.read(path);
    if (!isSeq(seq) || seq < head.logStart || seq > head.seq) return undefined;
    return this.#log.committed(path, head.repoId, seq);
  }

  /**
   * Refs and live packs as of `seq` (for `wal materialize` and reads pinned to a seq): the head itself, or
   * the cheapest of undoing entries back from the head, replaying from the checkpoint, or replaying from 0.
   */
  async stateAt(repo: string, seq: number): Promise<RepoState> {
    const path = parseRepoPath(repo);
    const head = await this.#heads.read(path);
    if (!isSeq(seq) || seq > head.seq) throw new SeqOutOfRangeError(path.full, seq, head.seq);
    if (seq === head.seq) return head;
    const cp = head.checkpoint;
    // Compaction merges packs keeping every object (reachable or not), so the head's live packs hold every
    // object any earlier state names, while the packs an old state listed may since have been retired.
    const withHeadPacks = (state: RepoState): RepoState => ({ seq: state.seq, refs: state.refs, packs: head.packs });
    const plans: { cost: number; run: () => Promise<RepoState> }[] = [];
    if (seq + 1 >= head.logStart) {
      plans.push({ cost: head.seq - seq, run: async () => undoEntries(head, (await this.#log.range(path, head.repoId, seq + 1, head.seq)).reverse()) });
    }
    if (cp && cp.seq <= seq && cp.seq + 1 >= head.logStart) {
      plans.push({ cost: seq - cp.seq + 1, run: async () => this.#replay(path, head, await this.#readCheckpoint(path, head, cp.seq), seq) });
    }
    if (head.logStart === 1) plans.push({ cost: seq, run: () => this.#replay(path, head, EMPTY_STATE, seq) });
    const best = plans.sort((a, b) => a.cost - b.cost)[0];
    if (!best) throw new HistoryUnavailableError(path.full, seq);
    return withHeadPacks(await best.run());
  }

  /** The refs as of `seq` (see `stateAt`). */
  async refsAt(repo: string, seq: number): Promise<ReadonlyMap<string, string>> {
    return (await this.stateAt(repo, seq)).refs;
  }

  /** A pack's bytes, or `undefined`. */
  async readPack(repo: string, pack: PackObject): Promise<Uint8Array | undefined> {
    return this.#readImmutable(isPackObject(pack) ? packKey(parseRepoPath(repo), pack) : undefined);
  }

  /** A live pack as a stream, for packs too large to hold in memory; `undefined` when the bucket lacks it. */
  async streamPack(repo: string, pack: PackObject): Promise<ObjectStream | undefined> {
    return isPackObject(pack) ? this.#store.getStream(packKey(parseRepoPath(repo), pack)) : undefined;
  }

  /** A pack's index, or `undefined` when none was published. */
  async readPackIndex(repo: string, pack: PackObject): Promise<Uint8Array | undefined> {
    return this.#readImmutable(isPackObject(pack) ? packIndexKey(parseRepoPath(repo), pack) : undefined);
  }

  /** The maintenance markers of the bucket (`cw-git wal pending`). */
  async listPending(): Promise<PendingMarker[]> {
    return listPending(this.#store);
  }

  async #readImmutable(key: string | undefined): Promise<Uint8Array | undefined> {
    const got = key === undefined ? undefined : await this.#store.get(key);
    return got?.kind === 'object' ? got.body : undefined;
  }

  async #replay(path: RepoPath, head: RepoHead, from: RepoState, to: number): Promise<RepoState> {
    return applyEntries(from, await this.#log.range(path, head.repoId, from.seq + 1, to));
  }

  async #readCheckpoint(path: RepoPath, head: RepoHead, seq: number): Promise<RepoState> {
    const key = checkpointKey(path, seq);
    const got = await this.#store.get(key);
    if (got?.kind !== 'object') throw new HistoryUnavailableError(path.full, seq);
    return decodeCheckpoint(key, got.body, { repoId: head.repoId, seq, objectFormat: head.objectFormat });
  }
}
