// A segment object: a run of committed WAL transactions, self-describing so a restore needs nothing else to apply
// it, and so a restore to a time can stop between two commits inside one segment.
//
//   "CWWS" | u32 version (1) | u32 page size | u32 commit count
//   per commit: f64 timestamp (ms) | u32 frame count | u32 db size in pages after it
//   then every commit's frames, in order, as SQLite wrote them (24-byte frame header + page)
//
// all big-endian, the whole gzipped (pages of a B-tree compress well, and this runs on the thread pool).
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { GZIP_LEVEL } from './gzip-level.ts';
import { FRAME_HEADER_BYTES } from './wal-format.ts';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

const MAGIC = 0x43575753; // "CWWS"
const VERSION = 1;
const HEADER_BYTES = 16;
const COMMIT_ENTRY_BYTES = 16;
/** The most a segment may inflate to: a bound against a corrupt or hostile object, far above any segment we write. */
const MAX_DECODED_BYTES = 1024 * 1024 * 1024;

export interface SegmentCommit {
  /** When the commit was captured (ms since the epoch): what restore to a time compares. */
  readonly ts: number;
  readonly dbSize: number;
  readonly frameCount: number;
  /** `frameCount` raw WAL frames. */
  readonly frames: Buffer;
}

export interface Segment {
  readonly pageSize: number;
  readonly commits: readonly SegmentCommit[];
}

export async function encodeSegment(segment: Segment): Promise<Buffer> {
  const head = Buffer.alloc(HEADER_BYTES + COMMIT_ENTRY_BYTES * segment.commits.length);
  head.writeUInt32BE(MAGIC, 0);
  head.writeUInt32BE(VERSION, 4);
  head.writeUInt32BE(segment.pageSize, 8);
  head.writeUInt32BE(segment.commits.length, 12);
  segment.commits.forEach((commit, i) => {
    const at = HEADER_BYTES + i * COMMIT_ENTRY_BYTES;
    head.writeDoubleBE(commit.ts, at);
    head.writeUInt32BE(commit.frameCount, at + 8);
    head.writeUInt32BE(commit.dbSize, at + 12);
  });
  return gzipAsync(Buffer.concat([head, ...segment.commits.map((c) => c.frames)]), { level: GZIP_LEVEL });
}

export async function decodeSegment(body: Uint8Array): Promise<Segment> {
  const bytes = await gunzipAsync(body, { maxOutputLength: MAX_DECODED_BYTES });
  if (bytes.byteLength < HEADER_BYTES || bytes.readUInt32BE(0) !== MAGIC) throw new Error('not a WAL segment');
  if (bytes.readUInt32BE(4) !== VERSION) throw new Error(`unknown WAL segment version ${bytes.readUInt32BE(4)}`);
  const pageSize = bytes.readUInt32BE(8);
  const count = bytes.readUInt32BE(12);
  const frameBytes = FRAME_HEADER_BYTES + pageSize;
  let offset = HEADER_BYTES + count * COMMIT_ENTRY_BYTES;
  if (offset > bytes.byteLength) throw new Error('truncated WAL segment');
  const commits: SegmentCommit[] = [];
  for (let i = 0; i < count; i++) {
    const at = HEADER_BYTES + i * COMMIT_ENTRY_BYTES;
    const frameCount = bytes.readUInt32BE(at + 8);
    const end = offset + frameCount * frameBytes;
    if (end > bytes.byteLength) throw new Error('truncated WAL segment');
    commits.push({ ts: bytes.readDoubleBE(at), frameCount, dbSize: bytes.readUInt32BE(at + 12), frames: bytes.subarray(offset, end) });
    offset = end;
  }
  if (offset !== bytes.byteLength) throw new Error('WAL segment has trailing bytes');
  return { pageSize, commits };
}
