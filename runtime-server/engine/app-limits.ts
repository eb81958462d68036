import type { AppLogs } from '../../src/runtime-contract/app-logs.ts';
import { attribute, type BlameBounds } from './blame.ts';
import type { Refusal } from './entry-proxy.ts';
import type { RuntimeLogger } from '../../src/runtime-contract/log.ts';
import { Probation } from './probation.ts';
import { Quarantines, type LimitReason, type Quarantine } from './quarantine.ts';
import type { ShardStop } from './shard.ts';
import type { UpstreamPool } from './upstream.ts';

export interface AppLimitsOptions {
  /** The CPU bound: how long a shard may go without answering anything (named in messages). */
  readonly cpuLimitMs: number;
  readonly quarantine: { readonly initialMs: number; readonly maxMs: number };
  /** How long apps suspected together take turns on their shard. */
  readonly probationMs: number;
  readonly blame: BlameBounds;
  readonly log: RuntimeLogger;
  /** Where the app's log (`cw logs`) gets the line saying what happened. */
  readonly logs: AppLogs;
  /** An app's quarantine started or ended: its report changed. */
  readonly onChange?: (key: string) => void;
}

/** Stops of a shard's workerd by kind (`cpu`, `memory`, `heap`, `crash`), and the apps quarantined by reason, for metrics. */
export interface LimitCounts {
  readonly stops: ReadonlyMap<ShardStop['kind'], number>;
  readonly quarantined: ReadonlyMap<LimitReason, number>;
}

/**
 * What the runtime does when an app's code stops its shard: judges which app it was (`blame.ts`), quarantines
 * that app (its requests are answered 503 here for a back-off that doubles with each offence, and its log
 * says why), or puts the suspects on probation when several could have been running; and, for each request,
 * whether it is refused for one of those reasons.
 */
/** What callers of the engine read of its limits: quarantines, probation, the counts, and what each reason means. */
export interface AppLimitsView {
  /** The app's quarantine on this replica (its requests are answered 503 until `until`), if it is quarantined. */
  quarantine(key: string): Quarantine | undefined;
  /** Apps on probation now (suspected together of stopping their shard; they take turns). */
  onProbation(): string[];
  /** Shards stopped at a limit or crashed, by kind, and apps quarantined now, by reason. */
  counts(): LimitCounts;
  /** What an app quarantined for `reason` did, for its owner (stable while it lasts). */
  why(reason: LimitReason): string;
}

export class AppLimits implements AppLimitsView {
  readonly #options: AppLimitsOptions;
  readonly #quarantines: Quarantines;
  readonly #probation: Probation;
  readonly #stops = new Map<ShardStop['kind'], number>();

  constructor(options: AppLimitsOptions) {
    this.#options = options;
    this.#quarantines = new Quarantines({ ...options.quarantine, ...(options.onChange ? { onChange: options.onChange } : {}) });
    this.#probation = new Probation(options.probationMs);
  }

  /** The app's quarantine on this replica, while it lasts. */
  quarantine(key: string): Quarantine | undefined {
    return this.#quarantines.get(key);
  }

  /** Apps on probation now. */
  onProbation(): string[] {
    return this.#probation.list();
  }

  counts(): LimitCounts {
    const quarantined = new Map<LimitReason, number>();
    for (const q of this.#quarantines.list().values()) quarantined.set(q.reason, (quarantined.get(q.reason) ?? 0) + 1);
    return { stops: new Map(this.#stops), quarantined };
  }

  /** Why a request of `key` (served by `shard`, through `pool`) is refused here now, if it is. Cheap when no app is held back. */
  refusal(key: string, shard: number, pool: UpstreamPool): Refusal | undefined {
    if (this.#quarantines.size > 0) {
      const q = this.#quarantines.get(key);
      if (q) {
        const seconds = Math.max(1, Math.ceil((q.until - Date.now()) / 1000));
        return { status: 503, title: 'Service Unavailable', detail: `${this.#why(q.reason)} It is served again in ${seconds} s.`, retryAfter: String(seconds), reason: q.reason };
      }
    }
    if (this.#probation.size > 0 && this.#probation.has(key)) {
      if (!this.#probation.admit(shard, key, (app) => pool.busy(app, this.#options.blame.endedGraceMs))) {
        return {
          status: 503,
          title: 'Service Unavailable',
          detail: 'The app is one of several that may have stopped the runtime shard serving them; they take turns for a while. Retry shortly.',
          retryAfter: '1',
          reason: 'Probation',
        };
      }
    }
    return undefined;
  }

  /**
   * A shard's workerd stopped. Called before it is torn down, while its evidence is whole. A stop of a limit
   * blames the one app that could have been running, or puts the several that could on probation; a crash
   * blames nobody. `buildOf` names the build an app serves (for its log entry). `spare` is asked first of
   * the app blamed: an app in a rollout loses its new release instead of being quarantined (`RuntimeEngine`).
   */
  stopped(stop: ShardStop, buildOf: (key: string) => string | undefined, spare: (key: string) => string | undefined = () => undefined): void {
    this.#stops.set(stop.kind, (this.#stops.get(stop.kind) ?? 0) + 1);
    const pool = stop.generation.upstream.pool;
    const verdict = attribute(pool.evidence(), this.#options.blame);
    const reason: LimitReason | undefined = stop.kind === 'cpu' ? 'CPULimitExceeded' : stop.kind === 'crash' ? undefined : 'MemoryLimitExceeded';
    this.#options.log.warn(reason ? 'workerd shard stopped at a limit' : 'workerd shard crashed', { shard: stop.generation.shard, kind: stop.kind, detail: stop.detail, verdict });
    if (!reason) return;
    if (verdict.kind === 'ambiguous') this.#probation.add(verdict.apps);
    if (verdict.kind !== 'blame') return;
    const key = verdict.app;
    const spared = spare(key);
    if (spared !== undefined) {
      this.#probation.forget(key);
      this.#options.log.warn('rollout: new release suspended', { app: key, build: spared, reason, detail: stop.detail });
      const now = new Date().toISOString();
      const message = `${this.#why(reason)} The app is in a rollout: its new release (build ${spared}), the likelier cause, is no longer served on this replica; the stable release serves all its traffic.`;
      this.#options.logs.add(key, {
        time: now,
        buildId: spared,
        outcome: reason === 'CPULimitExceeded' ? 'exceededCpu' : 'exceededMemory',
        status: 503,
        logs: [{ time: now, level: 'error', message }],
        exceptions: [],
      });
      return;
    }
    const q = this.#quarantines.impose(key, reason);
    this.#probation.forget(key);
    const message = `${this.#why(reason)} It is not served on this replica for ${Math.round((q.until - q.since) / 1000)} s (offence ${q.offences}).`;
    this.#options.log.warn('app quarantined', { app: key, reason, until: new Date(q.until).toISOString(), offences: q.offences, detail: stop.detail });
    const now = new Date().toISOString();
    this.#options.logs.add(key, {
      time: now,
      buildId: buildOf(key) ?? '',
      outcome: reason === 'CPULimitExceeded' ? 'exceededCpu' : 'exceededMemory',
      ...(pool.requestOf(key) ? { request: pool.requestOf(key)! } : {}),
      status: 503,
      logs: [{ time: now, level: 'error', message }],
      exceptions: [],
    });
  }

  /** The app is no longer served: nothing is held against it. */
  forget(key: string): void {
    this.#quarantines.forget(key);
    this.#probation.forget(key);
  }

  clear(): void {
    this.#quarantines.clear();
  }

  /** What an app quarantined for `reason` did, for its owner (stable: no times or counts). */
  why(reason: LimitReason): string {
    return this.#why(reason);
  }

  #why(reason: LimitReason): string {
    return reason === 'CPULimitExceeded'
      ? `The app was stopped: one of its requests ran for more than ${this.#options.cpuLimitMs} ms without yielding, which stalls every app of its runtime shard.`
      : 'The app was stopped: it ran its runtime shard out of memory.';
  }
}
