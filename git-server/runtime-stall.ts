// `service_runtime_stall_total`: the event loop stalled. A timer is due every quarter of the threshold; when
// it runs more than the threshold late, nothing else (requests, I/O callbacks, other timers) ran for that long
// either, and that is one stall, logged with its length. A plain drift timer rather than perf_hooks'
// histogram: one stall is one count, with a length to log.
import { performance } from 'node:perf_hooks';
import { Counter, type Registry } from 'prom-client';

/** How late the timer must run to count a stall, unless configured. */
export const DEFAULT_STALL_THRESHOLD_MS = 1000;

export interface RuntimeStallMonitorOptions {
  readonly registry: Registry;
  readonly log: { warn(obj: object, msg: string): void };
  /** How late the timer must run to count a stall. Default {@link DEFAULT_STALL_THRESHOLD_MS}. */
  readonly thresholdMs?: number;
}

export class RuntimeStallMonitor {
  readonly #counter: Counter;
  readonly #log: RuntimeStallMonitorOptions['log'];
  readonly #thresholdMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: RuntimeStallMonitorOptions) {
    this.#thresholdMs = options.thresholdMs ?? DEFAULT_STALL_THRESHOLD_MS;
    this.#log = options.log;
    this.#counter = new Counter({
      name: 'service_runtime_stall_total',
      help: 'Event loop stalls: a timer ran later than the stall threshold (1 s), so nothing else ran meanwhile.',
      registers: [options.registry],
    });
  }

  start(): void {
    if (this.#timer) return;
    const everyMs = Math.max(1, Math.floor(this.#thresholdMs / 4));
    let due = performance.now() + everyMs;
    this.#timer = setInterval(() => {
      const now = performance.now();
      // At least this long: the loop may have stopped up to one period before the timer was due.
      const lateMs = now - due;
      due = now + everyMs;
      if (lateMs <= this.#thresholdMs) return;
      this.#counter.inc();
      this.#log.warn({ stalledMs: Math.round(lateMs), thresholdMs: this.#thresholdMs }, 'event loop stalled');
    }, everyMs);
    // A monitor never keeps the process alive.
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
