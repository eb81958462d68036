// Archives spooled to disk so ranges and HEAD can be answered with a size: `git archive` streams without telling
// its length, so a Range request (a resumed download) or a HEAD makes the archive once into the cache's tmp
// directory, keyed by what its bytes are made of, and later requests read ranges of that file. Bounded: files not
// used for `ttlMs` go, the least recently used go once the total passes `maxBytes`, and an archive larger than
// `maxEntryBytes` is not spooled at all (it is then streamed whole, without ranges). The directory is emptied at
// start (serve.ts clears the cache's tmp directory), so nothing outlives the process that made it.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface ArchiveSpoolOptions {
  readonly dir: string;
  /** Default 2 GiB. */
  readonly maxBytes?: number;
  /** Default a quarter of `maxBytes`. */
  readonly maxEntryBytes?: number;
  /** Default 10 minutes. */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

/** A spooled archive opened for reading: unaffected by its eviction meanwhile (the file is only unlinked). */
export interface SpooledArchive {
  readonly handle: FileHandle;
  readonly size: number;
}

interface Entry {
  readonly path: string;
  readonly size: number;
  usedAt: number;
  /** Opens under way: eviction leaves the entry alone until they have their handle. */
  pins: number;
}

class TooLargeError extends Error {}
/** The spool is full of archives in use or being made: this one is not spooled (it is streamed instead). */
class NoRoomError extends Error {}

export class ArchiveSpool {
  readonly dir: string;
  readonly maxBytes: number;
  readonly maxEntryBytes: number;
  readonly ttlMs: number;
  readonly #now: () => number;
  /** Least recently used first (an entry is re-inserted when used). */
  readonly #entries = new Map<string, Entry>();
  readonly #making = new Map<string, Promise<void>>();
  /** Keys found too large, and when: not worth running git again to learn it twice within `ttlMs`. */
  readonly #tooLarge = new Map<string, number>();
  #total = 0;
  /** Bytes of archives being made: on the disk as much as those spooled, so counted against `maxBytes` too. */
  #inFlight = 0;

  constructor(options: ArchiveSpoolOptions) {
    this.dir = options.dir;
    this.maxBytes = options.maxBytes ?? 2 * 1024 ** 3;
    this.maxEntryBytes = options.maxEntryBytes ?? Math.floor(this.maxBytes / 4);
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Bytes spooled now. */
  get totalBytes(): number {
    return this.#total;
  }

  /** The spooled copy of `key`, opened, if there is one. The caller closes the handle. */
  async open(key: string): Promise<SpooledArchive | undefined> {
    this.#expire();
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    entry.pins++;
    try {
      const handle = await open(entry.path, 'r');
      entry.usedAt = this.#now();
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      return { handle, size: entry.size };
    } catch {
      this.#drop(key, entry);
      return undefined;
    } finally {
      entry.pins--;
    }
  }

  /**
   * The spooled copy of `key`, made first with `make` (which writes the archive to the stream it is given, without
   * ending it) when there is none; requests for the same key at the same time share one making. Undefined when the
   * archive is larger than `maxEntryBytes`. Rejects when `make` does.
   */
  async acquire(key: string, make: (out: Writable) => Promise<void>): Promise<SpooledArchive | undefined> {
    const found = await this.open(key);
    if (found) return found;
    const refused = this.#tooLarge.get(key);
    if (refused !== undefined && this.#now() - refused < this.ttlMs) return undefined;
    let making = this.#making.get(key);
    if (!making) {
      making = this.#make(key, make).finally(() => this.#making.delete(key));
      this.#making.set(key, making);
    }
    await making;
    return this.open(key);
  }

  async #make(key: string, make: (out: Writable) => Promise<void>): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const name = createHash('sha256').update(key).digest('hex');
    const path = join(this.dir, name);
    const part = join(this.dir, `${name}.${randomBytes(4).toString('hex')}.part`);
    let size = 0;
    const limit = this.maxEntryBytes;
    let counted = 0;
    // Flagged here: what the maker rethrows when its output is refused is its own error (git's), not this one.
    let noRoom = false;
    const room = (bytes: number) => {
      if (!this.#room(bytes)) return !(noRoom = true);
      counted += bytes;
      return true;
    };
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.byteLength;
        if (size > limit) return done(new TooLargeError());
        if (!room(chunk.byteLength)) return done(new NoRoomError());
        done(null, chunk);
      },
    });
    const written = pipeline(counter, createWriteStream(part));
    try {
      await make(counter);
      counter.end();
      await written;
      await rename(part, path);
    } catch (error) {
      counter.destroy();
      await written.catch(() => {});
      await rm(part, { force: true });
      if (size > limit) {
        this.#tooLarge.set(key, this.#now());
        return;
      }
      if (noRoom) return;
      throw error;
    } finally {
      this.#inFlight -= counted;
    }
    const previous = this.#entries.get(key);
    if (previous) this.#total -= previous.size;
    this.#entries.set(key, { path, size, usedAt: this.#now(), pins: 0 });
    this.#total += size;
    this.#evict(key);
  }

  /**
   * Counts `bytes` more of an archive being made, letting the least recently used spooled ones go to make room;
   * false (nothing counted) when even that leaves no room: the rest is archives in use or being made.
   */
  #room(bytes: number): boolean {
    if (this.#total + this.#inFlight + bytes > this.maxBytes) this.#evictFor(bytes);
    if (this.#total + this.#inFlight + bytes > this.maxBytes) return false;
    this.#inFlight += bytes;
    return true;
  }

  #evictFor(bytes: number): void {
    for (const [key, entry] of this.#entries) {
      if (this.#total + this.#inFlight + bytes <= this.maxBytes) return;
      if (entry.pins === 0) this.#drop(key, entry);
    }
  }

  #expire(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.pins === 0 && now - entry.usedAt >= this.ttlMs) this.#drop(key, entry);
    for (const [key, at] of this.#tooLarge) if (now - at >= this.ttlMs) this.#tooLarge.delete(key);
  }

  /** Least recently used first, until the total fits again; `keep` (just made) stays. */
  #evict(keep: string): void {
    for (const [key, entry] of this.#entries) {
      if (this.#total <= this.maxBytes) return;
      if (key !== keep && entry.pins === 0) this.#drop(key, entry);
    }
  }

  #drop(key: string, entry: Entry): void {
    if (this.#entries.get(key) !== entry) return;
    this.#entries.delete(key);
    this.#total -= entry.size;
    // Readers holding the file open keep reading it: unlinking only removes the name.
    void rm(entry.path, { force: true });
  }
}
