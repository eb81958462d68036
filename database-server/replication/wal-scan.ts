// Finding the committed transactions in bytes read from a WAL: the pure half of `TenantReplica.capture`.
import { FRAME_HEADER_BYTES, frameChecksum, parseFrameHeader, type WalChecksum, type WalHeader } from './wal-format.ts';

/** One transaction as SQLite committed it: its frames in WAL order, the last one the commit frame. */
export interface WalCommit {
  /** The database size in pages after the commit (from the commit frame). */
  readonly dbSize: number;
  readonly frameCount: number;
  /** The raw frames (24-byte header + page each), so a segment keeps SQLite's own framing. */
  readonly frames: Buffer;
}

export interface WalScan {
  readonly commits: WalCommit[];
  /** Bytes of `bytes` up to the end of the last commit frame: where the next capture starts. */
  readonly consumed: number;
  /** The running checksum at `consumed`, the seed of the next scan. */
  readonly checksum: WalChecksum;
}

/**
 * Scans frames from the start of `bytes` (a frame boundary of the WAL described by `header`), chaining the checksum
 * from `seed`, and answers the complete transactions. It stops at the first frame SQLite itself would not replay
 * (other salts, a broken checksum chain, a partial frame) and never passes the last commit frame: frames after it
 * belong to a transaction still open or rolled back (a spilled rollback leaves frames that are later overwritten).
 */
export function scanCommits(bytes: Buffer, header: WalHeader, seed: WalChecksum): WalScan {
  const frameBytes = FRAME_HEADER_BYTES + header.pageSize;
  const commits: WalCommit[] = [];
  let checksum = seed;
  let committed = { offset: 0, checksum: seed };
  let frameCount = 0;
  for (let offset = 0; offset + frameBytes <= bytes.byteLength; offset += frameBytes) {
    const frame = parseFrameHeader(bytes, offset);
    if (frame.salt1 !== header.salt1 || frame.salt2 !== header.salt2) break;
    checksum = frameChecksum(bytes, offset, header.pageSize, checksum, header.bigEndian);
    if (checksum.s1 !== frame.checksum.s1 || checksum.s2 !== frame.checksum.s2) break;
    frameCount++;
    if (frame.dbSize === 0) continue;
    const end = offset + frameBytes;
    commits.push({ dbSize: frame.dbSize, frameCount, frames: bytes.subarray(committed.offset, end) });
    committed = { offset: end, checksum };
    frameCount = 0;
  }
  return { commits, consumed: committed.offset, checksum: committed.checksum };
}
