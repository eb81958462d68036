import { isOutOfDescriptors } from '../../src/network-errors.ts';
import { SustainedCpu, type SustainedUse } from './sustained-cpu.ts';
/** What the watchdog watches: one workerd process. */
export interface WatchdogTarget {
  /** Asks the dispatcher for its health; resolves with the isolates it has loaded, or undefined for an answer that is not healthy. */
  ping(): Promise<number | undefined>;
  /** Its resident memory in bytes, or undefined when it cannot be read (it exited). */
  rss(): number | undefined;
  /** CPU time its main thread (where every isolate runs) has used, in ms, or undefined when it cannot be read. */
  cpuMs(): number | undefined;
  /** When it last answered anything that needed its thread free (a response head, a ping, body bytes not held back for their client: `entry-proxy.ts`). */
  lastOutput(): number;
  /** It answered: note the time. */
  answered(): void;
  /** CPU time its main thread has used plus the time it was ready to run and waited for a core, in ms, or undefined when it cannot be read. */
  busyMs?(): number | undefined;
  /** App key → its requests in flight there now that it has not begun to answer (the sustained bound's evidence). */
  inFlight?(): ReadonlyMap<string, number>;
  /** Project → how long it has had requests there that workerd had not begun to answer, in all (ms; the sustained bound's evidence). */
  waitedMs?(): ReadonlyMap<string, number>;
}

export interface WatchdogOptions {
  /** How often it pings (and reads the memory). */
  readonly intervalMs: number;
  /** A shard that has computed this long (CPU time) without answering a ping, nor any request, is stuck. */
  readonly cpuLimitMs: number;
  /**
   * Added to `cpuLimitMs` while the shard loads an isolate ({@link Watchdog.loading}): a large bundle's modules take
   * a cold start's CPU time to compile and evaluate, once per workerd and code (Cloudflare allows startup a second).
   */
  readonly startupLimitMs: number;
  /** Resident memory past which the shard is ended (0: no bound). */
  readonly memoryLimitBytes: number;
  /** The window over which a saturated thread is looked into (`sustained-cpu.ts`); 0 or none: it is not. */
  readonly sustainedWindowMs?: number;
}

export interface WatchdogHandlers {
  /** The shard is stuck (`cpu`: its thread has not come back for `cpuLimitMs`) or past its memory bound. Called once. */
  stuck(kind: 'cpu' | 'memory', detail: string): void;
  /** It answered healthy, with this many isolates loaded, and its resident memory as read at the tick (when bounded). */
  healthy(loads: number, rssBytes: number | undefined): void;
  /** It answered, but not healthy, or the ping failed (a crash shows as its exit). */
  unhealthy(): void;
  /** Its thread was saturated over the sustained window while requests were in flight: which app held it is the caller's to judge. */
  sustained?(use: SustainedUse): void;
}

/**
 * Watches one workerd shard: a health ping every `intervalMs` on its control socket, answered by the
 * dispatcher, which can only answer while the shard's one thread is free. The shard is stuck when a ping is
 * waiting and its thread has computed for `cpuLimitMs` of CPU time since it last answered anything: a shard
 * busy with many requests answers them (slow, not stuck), and a shard the machine does not schedule computes
 * nothing (late, not stuck). Once it is handed an isolate's code, the bound is `startupLimitMs` longer until it has
 * computed that much more. CPU time and memory are read from `/proc` at each tick. Before it says so, it
 * lets this process read what has arrived meanwhile (its own event loop may have been too busy to read an
 * answer that is waiting), and looks again. Each tick also goes to the sustained bound (`sustained-cpu.ts`): a thread
 * saturated over its window while requests were in flight is reported (`sustained`), and the caller judges whose
 * code held it.
 */
export class Watchdog {
  readonly #target: WatchdogTarget;
  readonly #options: WatchdogOptions;
  readonly #handlers: WatchdogHandlers;
  #timer: NodeJS.Timeout | undefined;
  #pendingSince: number | undefined;
  #fired = false;
  #confirming = false;
  /** The shard's CPU time at each recent tick, oldest first: what it computed since a moment. */
  #samples: Array<{ readonly at: number; readonly cpuMs: number }> = [];
  /** The shard's CPU time up to which the bound has the startup allowance (an isolate being loaded). */
  #startupUntilCpuMs = 0;
  /** Its ticks over the sustained window, the requests in flight read at each, and who is told: when that is looked into. */
  readonly #sustained: { readonly ticks: SustainedCpu; readonly inFlight: () => ReadonlyMap<string, number>; readonly report: (use: SustainedUse) => void } | undefined;

  constructor(target: WatchdogTarget, options: WatchdogOptions, handlers: WatchdogHandlers) {
    this.#target = target;
    this.#options = options;
    this.#handlers = handlers;
    const inFlight = target.inFlight?.bind(target);
    const report = handlers.sustained?.bind(handlers);
    if (options.sustainedWindowMs && inFlight && report) this.#sustained = { ticks: new SustainedCpu(options.sustainedWindowMs), inFlight, report };
  }

  start(): void {
    this.#timer = setInterval(() => this.#tick(), this.#options.intervalMs);
    this.#timer.unref();
  }

  /**
   * The shard was just handed an isolate's code (`GET /code/{id}` of `node-service.ts`), which its thread compiles and
   * evaluates next: it may compute the bound and the startup allowance more, from now, before it is stuck.
   */
  loading(): void {
    const cpuMs = this.#target.cpuMs();
    if (cpuMs === undefined) return;
    const { cpuLimitMs, startupLimitMs } = this.#options;
    this.#startupUntilCpuMs = Math.max(this.#startupUntilCpuMs, cpuMs + cpuLimitMs + startupLimitMs);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#fired = true;
  }

  #tick(): void {
    const now = Date.now();
    if (this.#fired || this.#confirming) return;
    const { cpuLimitMs, memoryLimitBytes } = this.#options;
    const cpuMs = this.#target.cpuMs();
    if (cpuMs !== undefined) {
      this.#samples.push({ at: now, cpuMs });
      // Enough to look back over the bound and a few ticks more.
      const keep = Math.ceil((cpuLimitMs + this.#options.startupLimitMs) / this.#options.intervalMs) + 8;
      if (this.#samples.length > keep) this.#samples.splice(0, this.#samples.length - keep);
      // Every tick, a ping waiting or not: a saturated shard's pings wait most of the time.
      const sustained = this.#sustained;
      const waitedMs = this.#target.waitedMs?.();
      const use = sustained?.ticks.tick({ at: now, cpuMs, busyMs: this.#target.busyMs?.() ?? cpuMs, inFlight: sustained.inFlight(), ...(waitedMs ? { waitedMs } : {}) });
      if (use) sustained?.report(use);
    }
    if (this.#pendingSince !== undefined) {
      if (this.#stuck(this.#stuckFor(cpuMs), cpuMs)) {
        // Answers already here are read in this turn's I/O phase, before the immediate runs.
        this.#confirming = true;
        setImmediate(() => {
          this.#confirming = false;
          const nowCpuMs = this.#target.cpuMs();
          const stalled = this.#stuckFor(nowCpuMs);
          if (!this.#fired && stalled && this.#stuck(stalled, nowCpuMs)) {
            this.#fire('cpu', `it computed for ${stalled.cpuMs} ms of CPU time without answering anything for ${stalled.wallMs} ms`);
          }
        });
      }
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
        else this.#handlers.healthy(loads, rss);
      },
      (err: unknown) => {
        this.#pendingSince = undefined;
        // This process out of descriptors cannot reach a workerd that is fine: killing it would leave no shard
        // at all, since none can be started again until descriptors are back (a hostile review did this).
        if (isOutOfDescriptors(err)) return;
        this.#handlers.unhealthy();
      },
    );
  }

  /**
   * How long the shard has answered nothing while a ping waits (undefined: none waits), and the CPU time it
   * used meanwhile, counted from the first sample at or after that moment, so never more than it used.
   */
  #stuckFor(nowCpuMs: number | undefined): { readonly wallMs: number; readonly cpuMs: number } | undefined {
    if (this.#pendingSince === undefined || nowCpuMs === undefined) return undefined;
    const since = Math.max(this.#pendingSince, this.#target.lastOutput());
    const from = this.#samples.find((sample) => sample.at >= since);
    return from === undefined ? undefined : { wallMs: Date.now() - since, cpuMs: nowCpuMs - from.cpuMs };
  }

  /**
   * Computed the bound without answering; or, on a machine so busy that its thread gets a sliver of a core,
   * answered nothing for ten times the bound while it did compute (its apps have waited that long). The bound is
   * longer by the startup allowance while an isolate it was handed may still be loading.
   */
  #stuck(stalled: { readonly wallMs: number; readonly cpuMs: number } | undefined, nowCpuMs: number | undefined): boolean {
    if (!stalled || nowCpuMs === undefined) return false;
    const { cpuLimitMs, startupLimitMs } = this.#options;
    const limit = nowCpuMs < this.#startupUntilCpuMs ? cpuLimitMs + startupLimitMs : cpuLimitMs;
    return stalled.cpuMs >= limit || (stalled.wallMs >= 10 * limit && stalled.cpuMs >= limit / 10);
  }

  #fire(kind: 'cpu' | 'memory', detail: string): void {
    this.stop();
    this.#handlers.stuck(kind, detail);
  }
}

/** CPU time (user + system) a process's main thread has used, in ms, from `/proc/<pid>/task/<pid>/stat` (Linux); undefined elsewhere or once it is gone. */
export function mainThreadCpuMs(pid: number, readStat: (path: string) => string): number | undefined {
  try {
    const stat = readStat(`/proc/${pid}/task/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/**
 * CPU time a process's main thread has used plus the time it was ready to run and waited for a core, in ms, from
 * `/proc/<pid>/task/<pid>/schedstat` (Linux: nanoseconds on a core, then waiting on a run queue); undefined elsewhere
 * or once it is gone.
 */
export function mainThreadBusyMs(pid: number, readSchedstat: (path: string) => string): number | undefined {
  try {
    const [running, waiting] = readSchedstat(`/proc/${pid}/task/${pid}/schedstat`).split(' ').map(Number);
    const ns = (running ?? Number.NaN) + (waiting ?? Number.NaN);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time a process's main thread has used, in ms to the nanosecond, from `/proc/<pid>/task/<pid>/schedstat`, where
 * the kernel keeps it (`/stat`'s figure, {@link mainThreadCpuMs}, moves in steps of 10 ms, coarse for one cold start,
 * and is what is read where there is no schedstat); undefined elsewhere or once it is gone.
 */
export function mainThreadRunMs(pid: number, read: (path: string) => string): number | undefined {
  try {
    const running = read(`/proc/${pid}/task/${pid}/schedstat`).split(' ')[0];
    if (running && Number.isFinite(Number(running))) return Number(running) / 1e6;
  } catch {
    // Read from /stat below.
  }
  return mainThreadCpuMs(pid, read);
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
