// How much of a build's log a runner reads. The bucket keeps at most MAX_BUILD_LOG_BYTES of it (build-log.ts);
// reading on past that would only stream a chatty build's output through the operator to be thrown away.
import { MAX_BUILD_LOG_BYTES } from '../../../src/platform/source-builds/build-log.ts';

export class LogBudget {
  readonly max: number;
  #left: number;
  #spent = false;

  constructor(max = MAX_BUILD_LOG_BYTES) {
    this.max = max;
    this.#left = max;
  }

  /** Once true, the runner stops reading the log. */
  get spent(): boolean {
    return this.#spent;
  }

  /** What of `text` to report: all of it within the budget, one note when it runs out, nothing after. */
  take(text: string): string {
    if (this.#spent) return '';
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.#left) {
      this.#left -= bytes;
      return text;
    }
    this.#spent = true;
    return `\n[cloudwright] the log passed ${this.max} bytes; the rest of the build's output was not read\n`;
  }
}
