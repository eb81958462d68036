/** What the watchdog watches: one workerd process. */
export interface WatchdogTarget {
  /** Asks the dispatcher for its health; resolves with the isolates it has loaded, or undefined for an answer that is not healthy. */
  ping(): Promise<number | undefined>;
  /** Its resident memory in bytes, or undefined when it cannot be read (it exited). */
  rss(): number | undefined;
  /** When it last answered anything (the entry point notes every byte of an answer). */
  lastOutput(): number;
  /** It answered: note the time. */
  answered(): void;
}

export interface WatchdogOptions {
  /** How often it pings (and reads the memory). */
  readonly intervalMs: number;
  /** A shard that has not answered a ping, nor any request, for this long is stuck. */
  readonly cpuLimitMs: number;
  /** Resident memory past which the shard is ended (0: no bound). */
  readonly memoryLimitBytes: number;
}

export interface WatchdogHandlers {
  /** The shard is stuck (`cpu`: its thread has not come back for `cpuLimitMs`) or past its memory bound. Called once. */
  stuck(kind: 'cpu' | 'memory', detail: string): void;
  /** It answered healthy, with this many isolates loaded. */
  healthy(loads: number): void;
  /** It answered, but not healthy, or the ping failed (a crash shows as its exit). */
  unhealthy(): void;
}

/**
 * Watches one workerd shard: a health ping every `intervalMs` on its control socket, answered by the
 * dispatcher, which can only answer while the shard's one thread is free. The shard is stuck when a ping
 * has waited `cpuLimitMs` and nothing else came out of it meanwhile either (a shard busy with many requests
 * answers them, so it is slow, not stuck). Its memory is read from `/proc` at the same pace. A tick this
 * process itself ran late (its own event loop was blocked, so answers may be waiting unread) judges nothing.
 */
export class Watchdog {
  readonly #target: WatchdogTarget;
  readonly #options: WatchdogOptions;
  readonly #handlers: WatchdogHandlers;
  #timer: NodeJS.Timeout | undefined;
  #pendingSince: number | undefined;
  #lastTick = 0;
  #fired = false;

  constructor(target: WatchdogTarget, options: WatchdogOptions, handlers: WatchdogHandlers) {
    this.#target = target;
    this.#options = options;
    this.#handlers = handlers;
  }

  start(): void {
    this.#lastTick = Date.now();
    this.#timer = setInterval(() => this.#tick(), this.#options.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#fired = true;
  }

  #tick(): void {
    const now = Date.now();
    const late = now - this.#lastTick > 2 * this.#options.intervalMs;
    this.#lastTick = now;
    if (this.#fired) return;
    const { cpuLimitMs, memoryLimitBytes } = this.#options;
    if (this.#pendingSince !== undefined) {
      const waited = now - Math.max(this.#pendingSince, this.#target.lastOutput());
      if (!late && waited >= cpuLimitMs) this.#fire('cpu', `it answered nothing for ${now - this.#target.lastOutput()} ms`);
      return;
    }
    const rss = memoryLimitBytes > 0 ? this.#target.rss() : undefined;
    if (rss !== undefined && rss > memoryLimitBytes) {
      this.#fire('memory', `it used ${Math.round(rss / 1048576)} MiB of memory, past its bound of ${Math.round(memoryLimitBytes / 1048576)} MiB`);
      return;
    }
    this.#pendingSince = now;
    this.#target.ping().then(
      (loads) => {
        this.#pendingSince = undefined;
        this.#target.answered();
        if (loads === undefined) this.#handlers.unhealthy();
        else this.#handlers.healthy(loads);
      },
      () => {
        this.#pendingSince = undefined;
        this.#handlers.unhealthy();
      },
    );
  }

  #fire(kind: 'cpu' | 'memory', detail: string): void {
    this.stop();
    this.#handlers.stuck(kind, detail);
  }
}

/** Resident memory of a process in bytes, from `/proc/<pid>/statm` (Linux); undefined elsewhere or once it is gone. */
export function residentBytes(pid: number, readStatm: (path: string) => string): number | undefined {
  try {
    const pages = Number(readStatm(`/proc/${pid}/statm`).split(' ')[1]);
    return Number.isFinite(pages) ? pages * 4096 : undefined;
  } catch {
    return undefined;
  }
}
