// One minute of an app's answers as a few bytes: the window keeps 1,440 of them per app, so every byte of a
// record is a byte and a half of a KB per app and day.

/** A minute as a vector: classes 1xx…5xx, exceptions, refused, then the 13 latency buckets. */
export const FIELDS = 20;
export const CLASSES = 5;
export const EXCEPTIONS = 5;
export const REFUSED = 6;
export const BUCKETS = 7;
export const BUCKET_COUNT = FIELDS - BUCKETS;

/** A writer of bytes into a buffer it may grow (`MinuteLog`'s). */
export interface ByteSink {
  push(byte: number): void;
}

export function writeVarint(out: ByteSink, value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** Signed to unsigned, small magnitudes small: 0, -1, 1, -2 … → 0, 1, 2, 3 … */
const zigzag = (d: number): number => (d >= 0 ? 2 * d : -2 * d - 1);
const unzigzag = (z: number): number => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

/**
 * What a bucket of a minute with `requests` answers is expected to hold: its share in the minute before,
 * scaled. An app's latency profile changes slowly, so the difference from it is a byte where the count is two.
 */
function predicted(prev: ArrayLike<number>, bucket: number, requests: number): number {
  let prevRequests = 0;
  for (let c = 0; c < CLASSES; c++) prevRequests += prev[c] ?? 0;
  return prevRequests === 0 ? 0 : Math.round(((prev[BUCKETS + bucket] ?? 0) * requests) / prevRequests);
}

/** Reads a varint at `at`; answers the value and the offset past it. */
export function readVarint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  let i = at;
  for (;;) {
    const b = bytes[i++] ?? 0;
    value += (b & 0x7f) * scale;
    if (b < 0x80) return [value, i];
    scale *= 0x80;
  }
}

/**
 * Encodes `v` (a minute with answers) `gap` minutes after the record before it (0: the next minute), whose
 * counts were `prev` (zeros for the first).
 *
 * A flags byte: bit i (0–6) set when field i (classes, exceptions, refused) is not zero, bit 7 when a gap
 * follows; the gap; the non-zero fields; then the latency buckets as a range byte (first and last bucket with
 * answers, four bits each) and, for that range but its last (the requests less the others), each count's
 * difference from its share in `prev` (`predicted`): an app answering in a few neighbouring buckets costs
 * about a byte per bucket, and idle fields nothing.
 */
export function encodeMinute(out: ByteSink, v: ArrayLike<number>, gap: number, prev: ArrayLike<number>): void {
  let flags = gap > 0 ? 0x80 : 0;
  for (let i = 0; i < BUCKETS; i++) if ((v[i] ?? 0) > 0) flags |= 1 << i;
  out.push(flags);
  if (gap > 0) writeVarint(out, gap);
  for (let i = 0; i < BUCKETS; i++) if ((v[i] ?? 0) > 0) writeVarint(out, v[i] ?? 0);
  let first = -1;
  let last = -1;
  for (let b = 0; b < BUCKET_COUNT; b++) {
    if ((v[BUCKETS + b] ?? 0) > 0) {
      if (first < 0) first = b;
      last = b;
    }
  }
  if (first < 0) return; // no answers (cannot happen for a record, which exists for its answers)
  out.push((first << 4) | last);
  let requests = 0;
  for (let c = 0; c < CLASSES; c++) requests += v[c] ?? 0;
  for (let b = first; b < last; b++) writeVarint(out, zigzag((v[BUCKETS + b] ?? 0) - predicted(prev, b, requests)));
}

/** Decodes the record at `at` into `v` (zeroed first), the record before it being `prev`; answers its gap and the offset past it. */
export function decodeMinute(bytes: Uint8Array, at: number, v: Float64Array, prev: ArrayLike<number>): { gap: number; next: number } {
  v.fill(0);
  let i = at;
  const flags = bytes[i++] ?? 0;
  let gap = 0;
  if (flags & 0x80) [gap, i] = readVarint(bytes, i);
  for (let f = 0; f < BUCKETS; f++) if (flags & (1 << f)) [v[f], i] = readVarint(bytes, i);
  let requests = 0;
  for (let c = 0; c < CLASSES; c++) requests += v[c] ?? 0;
  if (requests === 0) return { gap, next: i };
  const range = bytes[i++] ?? 0;
  const first = range >> 4;
  const last = range & 0x0f;
  let counted = 0;
  for (let b = first; b < last; b++) {
    let z: number;
    [z, i] = readVarint(bytes, i);
    const n = unzigzag(z) + predicted(prev, b, requests);
    v[BUCKETS + b] = n;
    counted += n;
  }
  v[BUCKETS + last] = requests - counted;
  return { gap, next: i };
}
