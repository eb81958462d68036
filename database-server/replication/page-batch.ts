// Commits applied to a database file as a batch: each page written once (its last image), runs of adjacent pages
// in one write. Replaying a segment page by page cost a system call per 4 KiB frame, most of a restore's time.
import type { FileHandle } from 'node:fs/promises';
import type { SegmentCommit } from './segment-codec.ts';
import { FRAME_HEADER_BYTES } from './wal-format.ts';

/** Writes per call: Linux's IOV_MAX. */
const MAX_IOVECS = 1024;

export class PageBatch {
  readonly #pageSize: number;
  readonly #pages = new Map<number, Buffer>();
  /** The smallest size (in pages) a commit in the batch gave the database: the file is cut there first. */
  #smallestSize = Infinity;
  #finalSize = 0;

  constructor(pageSize: number) {
    this.#pageSize = pageSize;
  }

  get empty(): boolean {
    return this.#smallestSize === Infinity;
  }

  /**
   * Adds a commit's frames (later commits' images win). A commit that shrinks the database drops the batch's
   * pages past its end, as applying it on its own would have cut them from the file.
   */
  add(commit: SegmentCommit): void {
    const frameBytes = FRAME_HEADER_BYTES + this.#pageSize;
    for (let offset = 0; offset < commit.frames.byteLength; offset += frameBytes) {
      const pgno = commit.frames.readUInt32BE(offset);
      if (pgno <= commit.dbSize) this.#pages.set(pgno, commit.frames.subarray(offset + FRAME_HEADER_BYTES, offset + frameBytes));
    }
    if (commit.dbSize < this.#smallestSize) {
      for (const pgno of this.#pages.keys()) if (pgno > commit.dbSize) this.#pages.delete(pgno);
      this.#smallestSize = commit.dbSize;
    }
    this.#finalSize = commit.dbSize;
  }

  /**
   * Writes the batch: the file cut to the smallest size a commit gave it (so pages a commit dropped and no later
   * one wrote read as zeros, as in SQLite's own file), the pages in runs, then the last commit's size.
   */
  async writeTo(file: FileHandle): Promise<void> {
    if (this.empty) return;
    const { size } = await file.stat();
    if (this.#smallestSize * this.#pageSize < size) await file.truncate(this.#smallestSize * this.#pageSize);
    const pgnos = [...this.#pages.keys()].sort((a, b) => a - b);
    for (let i = 0; i < pgnos.length;) {
      const first = pgnos[i] as number;
      const run: Buffer[] = [];
      while (i < pgnos.length && pgnos[i] === first + run.length && run.length < MAX_IOVECS) run.push(this.#pages.get(pgnos[i++] as number) as Buffer);
      await file.writev(run, (first - 1) * this.#pageSize);
    }
    await file.truncate(this.#finalSize * this.#pageSize);
    this.#pages.clear();
    this.#smallestSize = Infinity;
  }
}
