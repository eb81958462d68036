// SQLite's WAL file format (https://www.sqlite.org/fileformat2.html#walformat): the 32-byte header, the 24-byte
// frame header and the running checksum that tells a frame SQLite would replay from stale bytes.

export const WAL_HEADER_BYTES = 32;
export const FRAME_HEADER_BYTES = 24;

const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;

/** The running checksum pair; a frame's is computed over its first 8 header bytes and its page, from the previous one. */
export interface WalChecksum {
  readonly s1: number;
  readonly s2: number;
}

export interface WalHeader {
  readonly pageSize: number;
  readonly salt1: number;
  readonly salt2: number;
  /** Whether checksum words are read big-endian (magic 0x377f0683) or little-endian (0x377f0682). */
  readonly bigEndian: boolean;
  /** The header's own checksum: the seed of the first frame's. */
  readonly checksum: WalChecksum;
}

export interface FrameHeader {
  readonly pgno: number;
  /** The database size in pages after this commit; 0 when the frame is not a commit frame. */
  readonly dbSize: number;
  readonly salt1: number;
  readonly salt2: number;
  readonly checksum: WalChecksum;
}

/** Parses a WAL header, or throws when the bytes are not one SQLite would accept. */
export function parseWalHeader(bytes: Buffer): WalHeader {
  if (bytes.byteLength < WAL_HEADER_BYTES) throw new Error(`WAL header needs ${WAL_HEADER_BYTES} bytes, got ${bytes.byteLength}`);
  const magic = bytes.readUInt32BE(0);
  if (magic !== MAGIC_LITTLE_ENDIAN && magic !== MAGIC_BIG_ENDIAN) throw new Error(`not a WAL file (magic ${magic.toString(16)})`);
  const bigEndian = magic === MAGIC_BIG_ENDIAN;
  const pageSize = bytes.readUInt32BE(8);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) throw new Error(`invalid WAL page size ${pageSize}`);
  const checksum = walChecksum(bytes.subarray(0, 24), { s1: 0, s2: 0 }, bigEndian);
  if (checksum.s1 !== bytes.readUInt32BE(24) || checksum.s2 !== bytes.readUInt32BE(28)) throw new Error('WAL header checksum mismatch');
  return { pageSize, salt1: bytes.readUInt32BE(16), salt2: bytes.readUInt32BE(20), bigEndian, checksum };
}

export function parseFrameHeader(bytes: Buffer, offset: number): FrameHeader {
  return {
    pgno: bytes.readUInt32BE(offset),
    dbSize: bytes.readUInt32BE(offset + 4),
    salt1: bytes.readUInt32BE(offset + 8),
    salt2: bytes.readUInt32BE(offset + 12),
    checksum: { s1: bytes.readUInt32BE(offset + 16), s2: bytes.readUInt32BE(offset + 20) },
  };
}

/**
 * SQLite's walChecksumBytes: Fibonacci-weighted sums of 32-bit words, over a length that is a multiple of 8. Read
 * through a DataView: it runs under a tenant's lock on the process every tenant shares, and a DataView's words
 * cost about a fifth of `Buffer.readUInt32*`'s (256 MiB of WAL: 0.25 s against 1.2 s, on a busy host).
 */
export function walChecksum(bytes: Buffer, seed: WalChecksum, bigEndian: boolean): WalChecksum {
  return checksumOf(wordsOf(bytes), 0, bytes.byteLength, seed, bigEndian);
}

/** A view of `bytes` to read checksum words through: one for a whole chunk of frames, not one a frame. */
export function wordsOf(bytes: Buffer): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function checksumOf(words: DataView, start: number, end: number, seed: WalChecksum, bigEndian: boolean): WalChecksum {
  let s1 = seed.s1;
  let s2 = seed.s2;
  const littleEndian = !bigEndian;
  for (let i = start; i + 8 <= end; i += 8) {
    s1 = (s1 + words.getUint32(i, littleEndian) + s2) >>> 0;
    s2 = (s2 + words.getUint32(i + 4, littleEndian) + s1) >>> 0;
  }
  return { s1, s2 };
}

/** The checksum SQLite expects in the frame at `offset` (header and page), chained from the previous frame's. */
export function frameChecksum(words: DataView, offset: number, pageSize: number, seed: WalChecksum, bigEndian: boolean): WalChecksum {
  const afterHeader = checksumOf(words, offset, offset + 8, seed, bigEndian);
  const start = offset + FRAME_HEADER_BYTES;
  return checksumOf(words, start, start + pageSize, afterHeader, bigEndian);
}
