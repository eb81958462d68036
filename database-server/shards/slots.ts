/**
 * At most `size` tasks at once; the others wait in arrival order. Each tenant has at most one pipeline under way
 * (its lock), so arrival order is also a turn per tenant.
 */
export class Slots {
  readonly #size: number;
  #busy = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#size = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#busy >= this.#size) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#busy++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#busy--;
    }
  }
}
