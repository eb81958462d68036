// A segment object: a run of committed WAL transactions, self-describing so a restore needs nothing else to apply
// it, and so a restore to a time can stop between two commits inside one segment. A transaction bigger than a
// segment is cut into parts, one per segment, so that neither shipping nor restoring it holds it whole.
//
//   "CWWS" | u32 version (2) | u32 page size | u32 commit count
//   per commit: f64 timestamp (ms) | u32 frame count | u32 db size in pages after it | u32 parts after this one
//   then every commit's frames, in order, as SQLite wrote them (24-byte frame header + page)
//
// all big-endian, the whole gzipped (pages of a B-tree compress well, and this runs on the thread pool). Version 1,
// still read, had no parts: 16-byte commit entries without the last field.
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { GZIP_LEVEL } from './gzip-level.ts';
import { FRAME_HEADER_BYTES } from './wal-format.ts';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

const MAGIC = 0x43575753; // "CWWS"
const VERSION = 2;
const HEADER_BYTES = 16;
const COMMIT_ENTRY_BYTES = { 1: 16, 2: 20 } as const;
/** The most a segment may inflate to: a bound against a corrupt or hostile object, far above any segment we write. */
const MAX_DECODED_BYTES = 1024 * 1024 * 1024;

export interface SegmentCommit {
  /** When the commit was captured (ms since the epoch): what restore to a time compares. */
  readonly ts: number;
  readonly dbSize: number;
  readonly frameCount: number;
  /** `frameCount` raw WAL frames. */
  readonly frames: Buffer;
  /** How many parts of this transaction follow, one in each next segment (0 or absent: it ends here). */
  readonly partsAfter?: number;
}

export interface Segment {
  readonly pageSize: number;
  readonly commits: readonly SegmentCommit[];
}

/** A commit's entry in a segment: everything but its frames. */
export type SegmentEntry = Omit<SegmentCommit, 'frames'>;

/**
 * The uncompressed segment's first bytes for `commits`: the header and the commit entries; their frames follow.
 * Version 1 has no parts: only for segments that hold no part of a cut commit (older readers then read them).
 */
export function segmentHead(pageSize: number, commits: readonly SegmentEntry[], version: 1 | 2 = VERSION): Buffer {
  const entryBytes = COMMIT_ENTRY_BYTES[version];
  const head = Buffer.alloc(HEADER_BYTES + entryBytes * commits.length);
  head.writeUInt32BE(MAGIC, 0);
  head.writeUInt32BE(version, 4);
  head.writeUInt32BE(pageSize, 8);
  head.writeUInt32BE(commits.length, 12);
  commits.forEach((commit, i) => {
    const at = HEADER_BYTES + i * entryBytes;
    head.writeDoubleBE(commit.ts, at);
    head.writeUInt32BE(commit.frameCount, at + 8);
    head.writeUInt32BE(commit.dbSize, at + 12);
    if (version === 2) head.writeUInt32BE(commit.partsAfter ?? 0, at + 16);
  });
  return head;
}

/** The object for an uncompressed segment (its head, then its frames). */
export function compressSegment(raw: Buffer): Promise<Buffer> {
  return gzipAsync(raw, { level: GZIP_LEVEL });
}

export async function encodeSegment(segment: Segment): Promise<Buffer> {
  return compressSegment(Buffer.concat([segmentHead(segment.pageSize, segment.commits), ...segment.commits.map((c) => c.frames)]));
}

export async function decodeSegment(body: Uint8Array): Promise<Segment> {
  const bytes = await gunzipAsync(body, { maxOutputLength: MAX_DECODED_BYTES });
  if (bytes.byteLength < HEADER_BYTES || bytes.readUInt32BE(0) !== MAGIC) throw new Error('not a WAL segment');
  const version = bytes.readUInt32BE(4);
  if (version !== 1 && version !== 2) throw new Error(`unknown WAL segment version ${version}`);
  const entryBytes = COMMIT_ENTRY_BYTES[version];
  const pageSize = bytes.readUInt32BE(8);
  const count = bytes.readUInt32BE(12);
  const frameBytes = FRAME_HEADER_BYTES + pageSize;
  let offset = HEADER_BYTES + count * entryBytes;
  if (offset > bytes.byteLength) throw new Error('truncated WAL segment');
  const commits: SegmentCommit[] = [];
  for (let i = 0; i < count; i++) {
    const at = HEADER_BYTES + i * entryBytes;
    const frameCount = bytes.readUInt32BE(at + 8);
    const end = offset + frameCount * frameBytes;
    if (end > bytes.byteLength) throw new Error('truncated WAL segment');
    const partsAfter = version === 1 ? 0 : bytes.readUInt32BE(at + 16);
    commits.push({ ts: bytes.readDoubleBE(at), frameCount, dbSize: bytes.readUInt32BE(at + 12), frames: bytes.subarray(offset, end), partsAfter });
    offset = end;
  }
  if (offset !== bytes.byteLength) throw new Error('WAL segment has trailing bytes');
  return { pageSize, commits };
}
