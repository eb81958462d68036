// How many of workerd's output lines reach cw-runtime's log. Apps' console output goes to workerd's output too (and
// to the app's own log, `log-sink.ts`), so an app printing in a loop would otherwise write without bound into the
// platform's log, which every tenant of the replica shares: a hostile run wrote 100,000 lines with five requests.

/** Lines of one workerd's output let through per second; the rest are counted and said in one line. */
export const WORKERD_LINES_PER_SECOND = 200;

/** A fixed window of `perSecond` lines: `take` says whether a line goes to the log, and how many were left out before it. */
export class LineAllowance {
  readonly #perSecond: number;
  readonly #nowMs: () => number;
  #windowStart = -Infinity;
  #taken = 0;
  #leftOut = 0;

  constructor(perSecond = WORKERD_LINES_PER_SECOND, nowMs: () => number = Date.now) {
    this.#perSecond = perSecond;
    this.#nowMs = nowMs;
  }

  /**
   * Whether the next line goes to the log; `leftOut`: the lines of the windows before this one that did not, to be
   * said once (a count, never their text), as the first line of a new window.
   */
  take(): { readonly log: boolean; readonly leftOut: number } {
    const now = this.#nowMs();
    let leftOut = 0;
    if (now - this.#windowStart >= 1000) {
      this.#windowStart = now;
      this.#taken = 0;
      leftOut = this.#leftOut;
      this.#leftOut = 0;
    }
    if (this.#taken >= this.#perSecond) {
      this.#leftOut += 1;
      return { log: false, leftOut };
    }
    this.#taken += 1;
    return { log: true, leftOut };
  }
}
