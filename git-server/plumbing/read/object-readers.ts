// The object readers of this process, one per cached bare copy: started on first use, at most `max` at once
// (the least recently used is closed to make room), closed after `idleMs` without use, replaced when their process
// died. The repository cache closes a copy's reader whenever it deletes or re-creates the copy: a reader's git
// keeps the directory it started in, and must never answer for a repository deleted since.
import { ObjectReader } from './object-reader.ts';

export class ObjectReaderPool {
  readonly max: number;
  readonly idleMs: number;
  readonly #git: string | undefined;
  /** By directory, least recently used first (a Map keeps insertion order; a use moves a reader to the end). */
  readonly #readers = new Map<string, ObjectReader>();
  #sweep: NodeJS.Timeout | undefined;

  constructor(options: { max?: number; idleMs?: number; git?: string } = {}) {
    this.max = options.max ?? 16;
    this.idleMs = options.idleMs ?? 60_000;
    this.#git = options.git;
  }

  /** The reader of the bare repository `dir`, started now if there is none (or it died). */
  for(dir: string): ObjectReader {
    let reader = this.#readers.get(dir);
    if (reader?.usable) {
      this.#readers.delete(dir);
      this.#readers.set(dir, reader);
      return reader;
    }
    if (reader) this.close(dir);
    for (const [oldest] of this.#readers) {
      if (this.#readers.size < this.max) break;
      this.close(oldest);
    }
    reader = new ObjectReader(dir, { git: this.#git, onExit: (gone) => this.#forget(gone) });
    this.#readers.set(dir, reader);
    this.#startSweep();
    return reader;
  }

  /** Closes `dir`'s reader, if any; commands already written are still answered. */
  close(dir: string): void {
    const reader = this.#readers.get(dir);
    if (!reader) return;
    this.#readers.delete(dir);
    reader.close();
    if (this.#readers.size === 0) this.#stopSweep();
  }

  /** Closes every reader (shutdown, tests). */
  closeAll(): void {
    for (const dir of this.#readers.keys()) this.close(dir);
  }

  /** How many readers are open. */
  get size(): number {
    return this.#readers.size;
  }

  #forget(reader: ObjectReader): void {
    if (this.#readers.get(reader.dir) === reader) this.close(reader.dir);
  }

  #startSweep(): void {
    if (this.#sweep) return;
    this.#sweep = setInterval(
      () => {
        const now = Date.now();
        for (const [dir, reader] of this.#readers) if (reader.pending === 0 && now - reader.lastUsedMs >= this.idleMs) this.close(dir);
      },
      Math.max(10, this.idleMs / 4),
    );
    // Idle readers must never keep the process alive.
    this.#sweep.unref();
  }

  #stopSweep(): void {
    clearInterval(this.#sweep);
    this.#sweep = undefined;
  }
}

/** This process's readers: every read of a cached copy (git-server/plumbing/read/*) goes through them. */
export const objectReaders = new ObjectReaderPool();
