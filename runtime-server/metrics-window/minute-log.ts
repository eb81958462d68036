import { decodeMinute, encodeMinute, FIELDS, skipMinute, type ByteSink } from './minute-record.ts';

const EMPTY = new Uint8Array(0);
/** Room a record may need at most: flags, a gap and 19 varints of up to 8 bytes, and the range byte. */
const MAX_RECORD = 1 + 8 + 19 * 8 + 1;

/**
 * The closed minutes of one series (an app, or a build of it), packed (`minute-record.ts`) in one byte buffer,
 * oldest first: minutes without answers take no byte. Records older than the window leave from the front as
 * new ones come in; the buffer is compacted in place and grows by an eighth, so its slack stays small.
 */
export class MinuteLog implements ByteSink {
  #bytes: Uint8Array = EMPTY;
  #start = 0;
  #end = 0;
  /** The minute (ms / 60 000) before the first record's: its gap counts from here. */
  #base = 0;
  /** The last record's minute, or -1 with none. */
  #last = -1;

  /** Bytes held (the buffer's capacity: what it costs). */
  get capacity(): number {
    return this.#bytes.byteLength;
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
    }
    this.#reserve(MAX_RECORD);
    encodeMinute(this, counts, minute - this.#last - 1);
    this.#last = minute;
  }

  push(byte: number): void {
    this.#bytes[this.#end++] = byte;
  }

  /** Drops the records of minutes before `minute`. */
  dropBefore(minute: number): void {
    let at = this.#start;
    let m = this.#base;
    while (at < this.#end) {
      const { gap, next } = skipMinute(this.#bytes, at);
      if (m + 1 + gap >= minute) break;
      m += 1 + gap;
      at = next;
    }
    this.#start = at;
    this.#base = m;
    if (this.empty) this.#last = -1;
  }

  /** Calls `each` with every record from `minute` on, oldest first (`counts` is reused between calls). */
  read(minute: number, each: (minute: number, counts: Float64Array) => void): void {
    const counts = new Float64Array(FIELDS);
    let m = this.#base;
    for (let at = this.#start; at < this.#end;) {
      const { gap, next } = decodeMinute(this.#bytes, at, counts);
      m += 1 + gap;
      at = next;
      if (m >= minute) each(m, counts);
    }
  }

  /** Makes room for `need` more bytes: compacts first, grows only when the records fill most of the buffer. */
  #reserve(need: number): void {
    if (this.#end + need <= this.#bytes.byteLength) return;
    const used = this.#end - this.#start;
    if (used + need <= this.#bytes.byteLength && this.#start > 0) {
      this.#bytes.copyWithin(0, this.#start, this.#end);
    } else {
      const grown = new Uint8Array(used + need + Math.max(256, used >> 3));
      grown.set(this.#bytes.subarray(this.#start, this.#end));
      this.#bytes = grown;
    }
    this.#start = 0;
    this.#end = used;
  }
}
