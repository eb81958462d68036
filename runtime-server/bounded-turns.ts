/**
 * Turns for reads of the apiserver a replica makes on a client's behalf (lookups of apps and host names before its
 * lists): at most `concurrency` run at once and `maxWaiting` wait, so a flood of made-up names costs the apiserver
 * a bounded number of reads at a time; past that, {@link full} says so and the caller refuses at once.
 */
export class BoundedTurns {
  readonly #concurrency: number;
  readonly #maxWaiting: number;
  readonly #waiting: Array<() => void> = [];
  #active = 0;

  constructor(concurrency: number, maxWaiting: number) {
    this.#concurrency = concurrency;
    this.#maxWaiting = maxWaiting;
  }

  /** Whether another turn would have to be refused: every slot busy and as many waiting as allowed. */
  full(): boolean {
    return this.#active >= this.#concurrency && this.#waiting.length >= this.#maxWaiting;
  }

  /** Runs `work` in one of the slots; a slot freed goes straight to the next waiter. The caller checks {@link full} first. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active >= this.#concurrency) await new Promise<void>((wake) => this.#waiting.push(wake));
    else this.#active += 1;
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active -= 1;
    }
  }
}
