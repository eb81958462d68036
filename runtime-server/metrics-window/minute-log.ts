import { decodeMinute, encodeMinute, FIELDS, type ByteSink } from './minute-record.ts';

const EMPTY = new Uint8Array(0);
/** Room a record may need at most: flags, a gap and 19 varints of up to 8 bytes, and the range byte. */
const MAX_RECORD = 1 + 8 + 19 * 8 + 1;

/**
 * The closed minutes of one series (an app, or a build of it), packed (`minute-record.ts`) in one byte buffer,
 * oldest first: minutes without answers take no byte. Records older than the window leave from the front as
 * new ones come in; the buffer is compacted in place and grows by a sixteenth, so its slack stays small.
 * Each record is read against the one before it, so the log keeps the counts of the record before its first
 * (`#front`) and of its last (`#back`, for the next one's encoding).
 */
export class MinuteLog implements ByteSink {
  #bytes: Uint8Array = EMPTY;
  #start = 0;
  #end = 0;
  /** The minute (ms / 60 000) before the first record's: its gap counts from here. */
  #base = 0;
  /** The last record's minute, or -1 with none. */
  #last = -1;
  /** Allocated with the first record (a series without one costs no more than the object). */
  #front: Float64Array | undefined;
  #back: Float64Array | undefined;

  /** Bytes held: the buffer's capacity (what it costs) and the two records kept decoded. */
  get capacity(): number {
    return this.#bytes.byteLength + (this.#front?.byteLength ?? 0) + (this.#back?.byteLength ?? 0);
  }

  get empty(): boolean {
    return this.#start === this.#end;
  }

  get lastMinute(): number {
    return this.#last;
  }

  /** Appends the minute `minute` (after every earlier one); first drops the records before `keepFrom`. */
  append(minute: number, counts: ArrayLike<number>, keepFrom: number): void {
    this.dropBefore(keepFrom);
    if (this.empty) {
      this.#start = this.#end = 0;
      this.#base = minute - 1;
      this.#last = minute - 1;
      this.#front = new Float64Array(FIELDS);
      this.#back = new Float64Array(FIELDS);
    }
    const back = this.#back!;
    this.#reserve(MAX_RECORD);
    encodeMinute(this, counts, minute - this.#last - 1, back);
    back.set(counts);
    this.#last = minute;
  }

  push(byte: number): void {
    this.#bytes[this.#end++] = byte;
  }

  /** Drops the records of minutes before `minute`. */
  dropBefore(minute: number): void {
    if (this.empty || this.#base + 1 >= minute) return;
    let at = this.#start;
    let m = this.#base;
    let prev: Float64Array = this.#front!;
    let next: Float64Array = new Float64Array(FIELDS);
    while (at < this.#end) {
      const decoded = decodeMinute(this.#bytes, at, next, prev);
      if (m + 1 + decoded.gap >= minute) break;
      m += 1 + decoded.gap;
      at = decoded.next;
      [prev, next] = [next, prev];
    }
    this.#start = at;
    this.#base = m;
    this.#front = prev;
    if (this.empty) this.#forget();
  }

  /** Calls `each` with every record from `minute` on, oldest first (`counts` is reused between calls). */
  read(minute: number, each: (minute: number, counts: Float64Array) => void): void {
    if (this.empty) return;
    let prev = Float64Array.from(this.#front!);
    let counts = new Float64Array(FIELDS);
    let m = this.#base;
    for (let at = this.#start; at < this.#end;) {
      const { gap, next } = decodeMinute(this.#bytes, at, counts, prev);
      m += 1 + gap;
      at = next;
      if (m >= minute) each(m, counts);
      [prev, counts] = [counts, prev];
    }
  }

  /** No record left: the buffer and the decoded records go. */
  #forget(): void {
    this.#last = -1;
    this.#bytes = EMPTY;
    this.#start = this.#end = 0;
    this.#front = this.#back = undefined;
  }

  /** Makes room for `need` more bytes: compacts first, grows only when the records fill most of the buffer. */
  #reserve(need: number): void {
    if (this.#end + need <= this.#bytes.byteLength) return;
    const used = this.#end - this.#start;
    if (used + need <= this.#bytes.byteLength && this.#start > 0) {
      this.#bytes.copyWithin(0, this.#start, this.#end);
    } else {
      const grown = new Uint8Array(used + need + Math.max(256, used >> 4));
      grown.set(this.#bytes.subarray(this.#start, this.#end));
      this.#bytes = grown;
    }
    this.#start = 0;
    this.#end = used;
  }
}
