// Finding the committed transactions in a WAL: the pure half of `TenantReplica.capture`, fed the file a chunk at a
// time so that a transaction of any size is found without holding its frames.
import { FRAME_HEADER_BYTES, frameChecksum, parseFrameHeader, wordsOf, type WalChecksum, type WalHeader } from './wal-format.ts';

/** One transaction as SQLite committed it: where its frames lie in the WAL, the last one the commit frame. */
export interface WalCommit {
  /** The database size in pages after the commit (from the commit frame). */
  readonly dbSize: number;
  readonly frameCount: number;
  /** The WAL offset of its first frame (24-byte header + page each, SQLite's own framing). */
  readonly offset: number;
}

/**
 * Scans frames from a frame boundary of the WAL described by `header`, chaining the checksum from `seed`, and
 * collects the complete transactions. It stops at the first frame SQLite itself would not replay (other salts, a
 * broken checksum chain) and never passes the last commit frame: frames after it belong to a transaction still open
 * or rolled back (a spilled rollback leaves frames that are later overwritten).
 */
export class WalScanner {
  readonly commits: WalCommit[] = [];
  readonly #header: WalHeader;
  readonly #frameBytes: number;
  #checksum: WalChecksum;
  /** The WAL offset of the next frame to read. */
  #offset: number;
  #committed: { offset: number; checksum: WalChecksum };
  #frameCount = 0;
  #stopped = false;

  constructor(header: WalHeader, offset: number, seed: WalChecksum) {
    this.#header = header;
    this.#frameBytes = FRAME_HEADER_BYTES + header.pageSize;
    this.#checksum = seed;
    this.#offset = offset;
    this.#committed = { offset, checksum: seed };
  }

  /** Where the next scan starts: right after the last commit frame found. */
  get consumed(): number {
    return this.#committed.offset;
  }

  /** The running checksum at `consumed`, the seed of the next scan. */
  get checksum(): WalChecksum {
    return this.#committed.checksum;
  }

  /** Feeds the next whole frames (read from the current offset); false once a frame SQLite would not replay was met. */
  feed(bytes: Buffer): boolean {
    if (this.#stopped) return false;
    const { pageSize, salt1, salt2, bigEndian } = this.#header;
    const words = wordsOf(bytes);
    for (let at = 0; at + this.#frameBytes <= bytes.byteLength; at += this.#frameBytes) {
      const frame = parseFrameHeader(bytes, at);
      if (frame.salt1 !== salt1 || frame.salt2 !== salt2) return this.#stop();
      this.#checksum = frameChecksum(words, at, pageSize, this.#checksum, bigEndian);
      if (this.#checksum.s1 !== frame.checksum.s1 || this.#checksum.s2 !== frame.checksum.s2) return this.#stop();
      this.#frameCount++;
      this.#offset += this.#frameBytes;
      if (frame.dbSize === 0) continue;
      this.commits.push({ dbSize: frame.dbSize, frameCount: this.#frameCount, offset: this.#offset - this.#frameCount * this.#frameBytes });
      this.#committed = { offset: this.#offset, checksum: this.#checksum };
      this.#frameCount = 0;
    }
    return true;
  }

  #stop(): false {
    this.#stopped = true;
    return false;
  }
}
