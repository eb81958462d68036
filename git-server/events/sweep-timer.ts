// The events role's backstop: a sweep at start (what happened while no instance ran) and then one every interval,
// spread ±10 % so instances started together do not sweep together. A sweep starts only once the last one ended.
export class SweepTimer {
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  /** Runs `sweep` now and then every `intervalMs` (0: never again), until {@link stop}. `sweep` must not throw. */
  start(sweep: () => Promise<unknown>, intervalMs: number): void {
    const tick = () => {
      if (this.#stopped) return;
      void sweep().finally(() => {
        if (!this.#stopped && intervalMs > 0) this.#timer = setTimeout(tick, intervalMs * (0.9 + 0.2 * Math.random())).unref();
      });
    };
    tick();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }
}
