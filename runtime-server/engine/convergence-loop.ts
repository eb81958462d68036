/**
 * One pass at a time, as many as it takes: `kick` asks for a pass; kicks during a pass ask for one more after
 * it, however many there were (bursts coalesce, passes never overlap). A pass catches its own failures: it
 * settles its waiters with them.
 */
export class ConvergenceLoop {
  readonly #pass: () => Promise<void>;
  #dirty = false;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(pass: () => Promise<void>) {
    this.#pass = pass;
  }

  kick(): void {
    if (this.#stopped) return;
    this.#dirty = true;
    if (this.#running) return;
    this.#running = (async () => {
      while (this.#dirty && !this.#stopped) {
        this.#dirty = false;
        await this.#pass();
      }
    })().finally(() => (this.#running = undefined));
  }

  /** No pass starts after this; resolves once the pass running now (if any) has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running?.catch(() => {});
  }
}
