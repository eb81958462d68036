import { MinuteLog } from './minute-log.ts';
import { BUCKET_COUNT, BUCKETS, CLASSES, EXCEPTIONS, FIELDS, REFUSED } from './minute-record.ts';

/** Cumulative counts as the dispatchers (and the entry point's refusals) have them, for one app or build. */
export interface Cumulative {
  readonly classes: readonly number[];
  /** The dispatcher's 12 buckets; the answers past the last are `count` less their sum. */
  readonly buckets: readonly number[];
  readonly count: number;
  readonly exceptions?: number | undefined;
  readonly refused?: number | undefined;
}

/** Cumulative counts as a window vector (`minute-record.ts`'s layout). */
export function vectorOf(c: Cumulative): Float64Array {
  const v = new Float64Array(FIELDS);
  for (let i = 0; i < CLASSES; i++) v[i] = c.classes[i] ?? 0;
  v[EXCEPTIONS] = c.exceptions ?? 0;
  v[REFUSED] = c.refused ?? 0;
  let bucketed = 0;
  for (let b = 0; b < BUCKET_COUNT - 1; b++) {
    v[BUCKETS + b] = c.buckets[b] ?? 0;
    bucketed += c.buckets[b] ?? 0;
  }
  v[BUCKETS + BUCKET_COUNT - 1] = Math.max(0, c.count - bucketed);
  return v;
}

/**
 * One series of the window (an app, or one build of it): the cumulative counts last seen (what the next
 * reading is a difference from), the minute being counted (`open`, only while it has answers) and the closed
 * minutes, packed.
 */
export class Series {
  readonly log = new MinuteLog();
  #seen: Float64Array;
  #open: Float64Array | undefined;
  #openMinute = -1;

  constructor(seen: Float64Array) {
    this.#seen = seen;
  }

  /**
   * Adds what `now` (cumulative) has more than the last reading to `minute`; a minute before it with answers
   * is closed first. A count that went back started again from zero (the entry point's refusals of an app it let
   * go), so all of that one count is new, as Prometheus reads a counter's reset; the others go on as they were
   * (the dispatcher's never go back: zeroing them all would count an app's whole history again in one minute).
   */
  observe(now: Float64Array, minute: number, keepFrom: number): void {
    this.close(minute, keepFrom);
    if (now.some((value, i) => value < (this.#seen[i] ?? 0))) this.#seen = this.#seen.map((seen, i) => ((now[i] ?? 0) < seen ? 0 : seen));
    let moved = false;
    for (let i = 0; i < FIELDS; i++) if (now[i] !== this.#seen[i]) moved = true;
    if (!moved) return;
    this.#open ??= new Float64Array(FIELDS);
    this.#openMinute = minute;
    for (let i = 0; i < FIELDS; i++) this.#open[i] = (this.#open[i] ?? 0) + (now[i] ?? 0) - (this.#seen[i] ?? 0);
    this.#seen = now;
  }

  /** Closes the open minute when it is before `minute`: packed into the log. */
  close(minute: number, keepFrom: number): void {
    if (this.#open && this.#openMinute < minute) {
      this.log.append(this.#openMinute, this.#open, keepFrom);
      this.#open = undefined;
    } else if (!this.#open && !this.log.empty) {
      this.log.dropBefore(keepFrom);
    }
  }

  /** Nothing to answer: no open minute and no closed one left in the window. */
  get idle(): boolean {
    return !this.#open && this.log.empty;
  }

  /** Every minute with answers from `minute` on, the open one included. */
  read(minute: number, each: (minute: number, counts: Float64Array) => void): void {
    this.log.read(minute, each);
    if (this.#open && this.#openMinute >= minute) each(this.#openMinute, this.#open);
  }

  /** Bytes it holds in typed arrays (the packed minutes, the open minute, the last reading). */
  get bytes(): number {
    return this.log.capacity + (this.#open?.byteLength ?? 0) + this.#seen.byteLength;
  }
}
