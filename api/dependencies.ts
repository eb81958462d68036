// What cw-api works with but can serve without: the kube-apiserver, the bucket, the runtime and cw-db. Each is
// checked in the background and reported (in `/readyz`'s body and as a gauge), never made a condition of
// readiness: one of them down would otherwise take every API pod out of its Service at once, and with them the
// routes that still work and the problem details that say what does not.
import { Gauge, type Registry } from 'prom-client';

/** A dependency; `check` throws when it does not answer. */
export interface DependencyCheck {
  readonly name: string;
  check(signal: AbortSignal): Promise<void>;
}

/** What the last check of a dependency found; `up` is undefined until it has been checked once. */
export interface DependencyState {
  readonly name: string;
  readonly up: boolean | undefined;
  /** Since when it has been in this state (ISO 8601), once checked. */
  readonly since?: string;
}

/** The states `/readyz` reports. */
export interface DependencyReport {
  states(): DependencyState[];
}

export interface DependencyMonitorOptions {
  readonly registry: Registry;
  /** How often every dependency is checked (default 10 s). */
  readonly intervalMs?: number;
  /** How long one check may take before it counts as down (default 2 s). */
  readonly timeoutMs?: number;
  /** Told when a dependency changes state (a log line). */
  readonly onChange?: (state: DependencyState) => void;
  readonly now?: () => Date;
}

/** Checks every dependency now and then; the gauge `cloudwright_api_dependency_up{dependency}` is 1, 0 or absent (not checked yet). */
export class DependencyMonitor implements DependencyReport {
  readonly #checks: readonly DependencyCheck[];
  readonly #options: DependencyMonitorOptions;
  readonly #states = new Map<string, { up: boolean; since: Date }>();
  readonly #gauge: Gauge;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(checks: readonly DependencyCheck[], options: DependencyMonitorOptions) {
    this.#checks = checks;
    this.#options = options;
    this.#gauge = new Gauge({
      name: 'cloudwright_api_dependency_up',
      help: 'Whether a dependency of cw-api answered its last check (1) or not (0)',
      labelNames: ['dependency'],
      registers: [options.registry],
    });
  }

  /** Checks everything once now, then every interval, until `stop`. */
  start(): Promise<void> {
    this.#timer ??= setInterval(() => void this.checkAll(), this.#options.intervalMs ?? 10_000).unref();
    return this.checkAll();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One round of checks; a round still running is joined rather than doubled. */
  checkAll(): Promise<void> {
    this.#running ??= Promise.all(this.#checks.map((dependency) => this.#checkOne(dependency))).then(
      () => {
        this.#running = undefined;
      },
      () => {
        this.#running = undefined;
      },
    );
    return this.#running;
  }

  states(): DependencyState[] {
    return this.#checks.map(({ name }) => {
      const state = this.#states.get(name);
      return state ? { name, up: state.up, since: state.since.toISOString() } : { name, up: undefined };
    });
  }

  async #checkOne(dependency: DependencyCheck): Promise<void> {
    const { name } = dependency;
    let up = true;
    try {
      await dependency.check(AbortSignal.timeout(this.#options.timeoutMs ?? 2_000));
    } catch {
      up = false;
    }
    this.#gauge.set({ dependency: name }, up ? 1 : 0);
    const before = this.#states.get(name);
    if (before?.up === up) return;
    const since = this.#options.now?.() ?? new Date();
    this.#states.set(name, { up, since });
    if (before || !up) this.#options.onChange?.({ name, up, since: since.toISOString() });
  }
}
