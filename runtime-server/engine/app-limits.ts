import type { AppLogs } from '../../src/runtime-contract/app-logs.ts';
import { splitKey } from '../../src/kube/types.ts';
import { attribute, type BlameBounds, type Verdict } from './blame.ts';
import type { Refusal } from './entry-proxy.ts';
import type { RuntimeLogger } from '../../src/runtime-contract/log.ts';
import { Probation } from './probation.ts';
import { Quarantines, type LimitReason, type Quarantine } from './quarantine.ts';
import type { ShardStop } from './shard.ts';
import { sustainedCulprit, type SustainedUse } from './sustained-cpu.ts';
import type { UpstreamPool } from './upstream.ts';

export interface AppLimitsOptions {
  /** The CPU bound: how long a shard may go without answering anything (named in messages). */
  readonly cpuLimitMs: number;
  /** The sustained bound's window (named in messages). */
  readonly sustainedWindowMs: number;
  readonly quarantine: { readonly initialMs: number; readonly maxMs: number };
  /** How long apps suspected together take turns on their shard. */
  readonly probationMs: number;
  readonly blame: BlameBounds;
  readonly log: RuntimeLogger;
  /** Where the app's log (`cw logs`) gets the line saying what happened. */
  readonly logs: AppLogs;
  /** An app's quarantine started or ended: its report changed. */
  readonly onChange?: (key: string) => void;
  /** When an app was created (epoch ms), if known: only a project's fresh apps count toward holding it back. */
  readonly createdAt?: (key: string) => number | undefined;
  /**
   * V8 tells who holds a shard's memory (`isolate-memory.ts`): a memory or heap stop it lays on nobody is laid on
   * nobody. Without it (the runtime not asking the thread), the requests in flight decide as for CPU.
   */
  readonly memoryAccount?: boolean;
  /**
   * Whom a project's stops count against (`RuntimeEngineOptions.accountOf`), and the projects of an account that
   * have apps here: an account whose projects keep stopping shards has all of them held back. Default: each
   * project its own account.
   */
  readonly accounts?: { readonly of: (project: string) => string; readonly projects: (account: string) => Iterable<string> };
}

/** An app's quarantine: its own, or (`project`) the one its whole project is under on this replica. */
export type AppQuarantine = Quarantine & { readonly project?: true };

/** Stops of a shard's workerd by kind (`cpu`, `memory`, `heap`, `crash`), and the apps quarantined by reason, for metrics. */
export interface LimitCounts {
  readonly stops: ReadonlyMap<ShardStop['kind'], number>;
  readonly quarantined: ReadonlyMap<LimitReason, number>;
  /** Windows a shard's thread was found saturated over (the sustained bound), by whether an app was held to one. */
  readonly saturated: ReadonlyMap<SaturationOutcome, number>;
}

/** What came of a saturated window: an app was held to it, or nobody was (no project had most of the thread, or none waited). */
export type SaturationOutcome = 'held' | 'nobody';

/** What callers of the engine read of its limits: quarantines, probation, the counts, and what each reason means. */
export interface AppLimitsView {
  /** The app's quarantine on this replica, or its project's (its requests are answered 503 until `until`), if it is quarantined. */
  quarantine(key: string): AppQuarantine | undefined;
  /** Apps on probation now (suspected together of stopping their shard; they take turns). */
  onProbation(): string[];
  /** Shards stopped at a limit or crashed, by kind, and apps quarantined now, by reason. */
  counts(): LimitCounts;
  /** What an app quarantined for `reason` did (`sustained`: CPU held over a window), or its project (`project`), for its owner (stable while it lasts). */
  why(reason: LimitReason, project?: boolean, sustained?: boolean): string;
}

/** Stops that quarantined apps of one account's projects within {@link PROJECT_STOPS_WINDOW_MS} before all their apps are held back on the replica. */
export const PROJECT_STOPS = 3;
/** New releases of one account's rollouts suspended for stopping a shard within the window before the same. */
export const PROJECT_RELEASE_STOPS = 5;
export const PROJECT_STOPS_WINDOW_MS = 10 * 60_000;

/** Accounts with stops remembered past which those all out of the window are forgotten. */
const ACCOUNTS_SWEPT_PAST = 1000;

/** Where a project's own quarantine is kept among the apps': `<project>/*` (no app is named `*`). */
function projectQuarantineKey(project: string): string {
  return `${project}/*`;
}

/**
 * What the runtime does when an app's code stops its shard: judges which apps could have done it (`blame.ts`),
 * quarantines them when they are one project's (their requests are answered 503 here for a back-off that doubles
 * with each offence, and their log says why), or puts them and their projects on probation when several
 * projects' could have been running; holds back a whole project whose apps keep doing it; and, for each request,
 * whether it is refused for one of those reasons.
 */
export class AppLimits implements AppLimitsView {
  readonly #options: AppLimitsOptions;
  readonly #quarantines: Quarantines;
  readonly #probation: Probation;
  readonly #stops = new Map<ShardStop['kind'], number>();
  readonly #saturated = new Map<SaturationOutcome, number>();
  /** Account → the stops laid on its projects lately (a quarantining stop, or a release suspended) and when. */
  readonly #accountStops = new Map<string, Map<string, number>>();
  /** Account → when its projects were held back, and which: another project of it that stops a shard within the window is held at once. */
  readonly #accountsHeld = new Map<string, { readonly at: number; readonly projects: Set<string> }>();
  /** A stopped workerd's requests → the projects whose code its thread was running, or whose isolates held its memory (only when V8 told). */
  readonly #stoppedBy = new WeakMap<UpstreamPool, ReadonlySet<string>>();

  constructor(options: AppLimitsOptions) {
    this.#options = options;
    this.#quarantines = new Quarantines({ ...options.quarantine, ...(options.onChange ? { onChange: options.onChange } : {}) });
    this.#probation = new Probation(options.probationMs);
  }

  /**
   * Whether a request of `key` that `pool`'s workerd dropped when it was stopped may be sent again: when the stopped
   * thread said which code it ran, and that code was another project's, or when V8's account laid a memory stop on
   * nobody. The same project's requests are not (they may run that code again, a rollout's release say, and stop
   * the shard a second time), nor any when a CPU stop was judged from the requests in flight (any of them could have
   * been running). A memory stop laid on nobody is not judged from the requests at all: each of them is sent again
   * once (the entry point's rule), as a retry would be, so a tenant growing memory V8 does not see costs its
   * neighbours a restart's wait, not their requests; its own request, if one was growing, grows again at most once.
   */
  resendable(key: string, pool: UpstreamPool): boolean {
    const by = this.#stoppedBy.get(pool);
    const account = this.#accountOf(splitKey(key).namespace);
    return by !== undefined && ![...by].some((project) => this.#accountOf(project) === account) && this.quarantine(key) === undefined;
  }

  /** The app's quarantine on this replica, or its project's (`project: true`), while it lasts. */
  quarantine(key: string): AppQuarantine | undefined {
    if (this.#quarantines.size === 0) return undefined;
    const own = this.#quarantines.get(key);
    if (own) return own;
    const project = this.#quarantines.get(projectQuarantineKey(splitKey(key).namespace));
    return project && { ...project, project: true };
  }

  /** Apps on probation now. */
  onProbation(): string[] {
    return this.#probation.list();
  }

  /** Counts a saturated window by what came of it (`cloudwright_runtime_saturated_windows_total`). */
  countSaturation(outcome: SaturationOutcome): void {
    this.#saturated.set(outcome, (this.#saturated.get(outcome) ?? 0) + 1);
  }

  counts(): LimitCounts {
    const quarantined = new Map<LimitReason, number>();
    for (const q of this.#quarantines.list().values()) quarantined.set(q.reason, (quarantined.get(q.reason) ?? 0) + 1);
    return { stops: new Map(this.#stops), quarantined, saturated: new Map(this.#saturated) };
  }

  /** Why a request of `key` (served by `shard`, through `pool`) is refused here now, if it is. Cheap when no app is held back. */
  refusal(key: string, shard: number, pool: UpstreamPool): Refusal | undefined {
    if (this.#quarantines.size > 0) {
      const q = this.quarantine(key);
      if (q) {
        const seconds = Math.max(1, Math.ceil((q.until - Date.now()) / 1000));
        return {
          status: 503,
          title: 'Service Unavailable',
          detail: `${this.why(q.reason, q.project, q.sustained)} It is served again in ${seconds} s.`,
          retryAfter: String(seconds),
          reason: q.reason,
        };
      }
    }
    if (this.#probation.size > 0) {
      const project = splitKey(key).namespace;
      if (this.#probation.covers(project) && !this.#probation.admit(shard, project, (other) => pool.busy(other, this.#options.blame.endedGraceMs))) {
        return probationRefusal("The app's project is one of several whose apps may have stopped the runtime shard serving them; they take turns for a while. Retry shortly.");
      }
    }
    return undefined;
  }

  /** Counts a request of `project` held for `shard`'s probation turn in (`+1`) or out (`-1`). */
  waitingForTurn(shard: number, project: string, delta: 1 | -1): void {
    this.#probation.waiting(shard, project, delta);
  }

  /** Calls `listener` once when `shard`'s probation turn next changes hands; returns what unsubscribes it. */
  onHandover(shard: number, listener: () => void): () => void {
    return this.#probation.onHandover(shard, listener);
  }

  /** The project on probation whose turn it is on `shard`, if one's is: a request refused for its turn waits for that project's requests. */
  turnHolder(shard: number): string | undefined {
    return this.#probation.size > 0 ? this.#probation.holder(shard) : undefined;
  }

  /**
   * Another project has waited `waitedMs` for the turn on `shard`: the requests there of the project holding it,
   * sent before that wait began, are cut short (answered 503), so a project on probation cannot keep a shard's turn
   * with requests that never end. The apps of the requests cut.
   */
  endTurn(shard: number, pool: UpstreamPool, waitedMs: number, sentBefore: number): string[] {
    const holder = this.turnHolder(shard);
    if (holder === undefined) return [];
    const seconds = Math.round(waitedMs / 100) / 10;
    const cut = pool.cut(
      holder,
      probationRefusal(
        `The request was cut short: the app's project is one of several whose apps may have stopped the runtime shard serving them, which take turns there for a while, and it kept the turn for another project's requests waiting ${seconds} s. Retry shortly.`,
      ),
      sentBefore,
    );
    if (cut.length > 0) this.#options.log.info('probation turn cut short', { shard, project: holder, requests: cut.length });
    return cut;
  }

  /**
   * A shard's thread was saturated over the sustained window (`use`; `samples`: the apps whose code each sample of
   * its thread ran, when it was asked). The app that held most of it while another project's requests waited
   * (`sustainedCulprit`) is held to it as to a stop: quarantined with `CPULimitExceeded` (or its new release suspended,
   * in a rollout), and its requests there cut short, which frees the thread at their next `await`. Answers that app,
   * with `end` when none of its requests was there to cut (its code runs after its answers, or on although it is
   * quarantined): the shard's workerd must then be ended and the stop laid on it (`stopped`, with `sustained`), and it
   * is not held to it here.
   */
  sustained(
    use: SustainedUse,
    samples: ReadonlyArray<readonly string[]> | undefined,
    stop: Omit<ShardStop, 'kind' | 'detail'>,
    buildOf: (key: string) => string | undefined,
    spare: (key: string) => string | undefined,
  ): { readonly app: string; readonly detail: string; readonly end: boolean } | undefined {
    const culprit = sustainedCulprit(use, samples);
    const pool = stop.generation.upstream.pool;
    const seen = { shard: stop.generation.shard, seconds: Math.round(use.wallMs / 100) / 10, busy: Math.round(use.busy * 100), by: samples ? 'thread' : 'requests', waiting: [...use.waiting] };
    if (!culprit) {
      this.countSaturation('nobody');
      this.#options.log.info('workerd shard saturated; nobody held to it', seen);
      return undefined;
    }
    const detail = `it held ${Math.round(culprit.share * 100)} % of the shard's CPU time over ${seen.seconds} s while other projects' requests waited (the thread busy ${seen.busy} % of the time)`;
    this.#options.log.warn('workerd shard saturated by one app', { ...seen, app: culprit.app, detail });
    // Nothing of it in flight: the caller ends the shard if the thread was found in its code (and counts the window).
    if (!pool.inFlightByApp().has(culprit.app)) return { app: culprit.app, detail, end: true };
    this.countSaturation('held');
    this.#laidOn([culprit.app], 'CPULimitExceeded', { ...stop, kind: 'cpu', detail, sustained: true }, buildOf, spare, samples !== undefined);
    // Quarantined: its requests are answered what later ones are; spared (a rollout's new release suspended): retried.
    const refusal = this.refusal(culprit.app, stop.generation.shard, pool) ?? {
      status: 503,
      title: 'Service Unavailable',
      detail: `${this.#why('CPULimitExceeded', true)} The request was cut short; retry shortly.`,
      retryAfter: '1',
      reason: 'CPULimitExceeded',
    };
    const cut = pool.cut(culprit.app, refusal);
    this.#options.log.info('requests cut short', { app: culprit.app, requests: cut.length });
    return { app: culprit.app, detail, end: false };
  }

  /**
   * A shard's workerd stopped. Called before it is torn down, while its evidence is whole. A stop of a limit
   * holds the apps that could have been running to it when they are one account's, or puts them on probation
   * when they are several accounts'; a crash blames nobody. `buildOf` names the build an app serves (for its log entry). `spare` is asked first of
   * the app blamed: an app in a rollout loses its new release instead of being quarantined (`RuntimeEngine`).
   * `running`: the app whose code the stopped thread was running, or whose isolate held the memory past the bound,
   * when that could be told (`running-app.ts`); several
   * when its isolate could not be told apart from another's, who are then judged as suspects are.
   */
  stopped(stop: ShardStop, buildOf: (key: string) => string | undefined, spare: (key: string) => string | undefined = () => undefined, running?: readonly string[]): void {
    this.#stops.set(stop.kind, (this.#stops.get(stop.kind) ?? 0) + 1);
    const pool = stop.generation.upstream.pool;
    // A request a stop dropped waits for this verdict (`UpstreamPool.afterJudged`), also when its workerd ended itself.
    const runningProjects = new Set(running?.map((key) => splitKey(key).namespace));
    // Memory the account laid on several projects is each one's (each held a quarter of the bound: `memoryCulprit`).
    const eachTheirs = stop.kind === 'memory' && runningProjects.size > 1;
    const unaccounted = this.#options.memoryAccount === true && (stop.kind === 'memory' || stop.kind === 'heap');
    if ((runningProjects.size === 1 || eachTheirs) && stop.kind !== 'crash') this.#stoppedBy.set(pool, runningProjects);
    else if (running === undefined && unaccounted) this.#stoppedBy.set(pool, new Set());
    // The thread's own answer, when it gave one, is the app's code that was running: no judging from outside needed.
    // Memory has no such evidence outside: an app grows it after its answer as well as before, so a memory or heap
    // stop V8 did not lay on a project is laid on nobody rather than on the requests in flight (a third hostile run
    // had busy victims quarantined seven ways: memory V8 counts late or never, two attacking projects).
    const verdict: Verdict =
      running === undefined
        ? unaccounted
          ? { kind: 'unattributed' }
          : attribute(pool.evidence(), this.#options.blame)
        : running.length === 1
          ? { kind: 'blame', app: running[0]! }
          : { kind: 'ambiguous', apps: running };
    const reason: LimitReason | undefined = stop.kind === 'cpu' ? 'CPULimitExceeded' : stop.kind === 'crash' ? undefined : 'MemoryLimitExceeded';
    this.#options.log.warn(reason ? 'workerd shard stopped at a limit' : 'workerd shard crashed', {
      shard: stop.generation.shard,
      kind: stop.kind,
      detail: stop.detail,
      verdict,
      by: running !== undefined ? 'thread' : unaccounted ? 'none' : 'requests',
    });
    if (!reason) return;
    if (verdict.kind === 'unattributed') return;
    const apps = verdict.kind === 'blame' ? [verdict.app] : verdict.apps;
    const projects = new Set(apps.map((app) => splitKey(app).namespace));
    // Told by the thread (or V8's account of memory) to be one project's, the stop is surely that project's; memory
    // laid on several projects (each a quarter of the bound) is not told so, and keeps the age rule.
    const told = running !== undefined && runningProjects.size === 1;
    if (eachTheirs) {
      for (const project of projects)
        this.#laidOn(
          apps.filter((app) => splitKey(app).namespace === project),
          reason,
          stop,
          buildOf,
          spare,
          told,
        );
      return;
    }
    if (projects.size > 1 && new Set([...projects].map((project) => this.#accountOf(project))).size > 1) {
      this.#probation.add(apps);
      return;
    }
    // Suspects of several projects of one account are one tenant's (a user choosing project names that share a
    // shard would otherwise turn every stall into turns): each project's suspects are held to it, and the stop
    // counts once toward the account's hold.
    let quarantined = false;
    for (const project of projects)
      if (
        !this.#laidOn(
          apps.filter((app) => splitKey(app).namespace === project),
          reason,
          stop,
          buildOf,
          spare,
        )
      )
        quarantined = true;
    if (quarantined && (told || this.#anyFresh(apps))) this.#countStop(splitKey(apps[0]!).namespace, undefined, reason, stop);
  }

  #accountOf(project: string): string {
    return this.#options.accounts?.of(project) ?? project;
  }

  /** Whether any of `apps` was made within the window: only such apps count a stop judged from the requests in flight. */
  #anyFresh(apps: readonly string[]): boolean {
    const now = Date.now();
    return apps.some((key) => (this.#options.createdAt?.(key) ?? now) > now - PROJECT_STOPS_WINDOW_MS);
  }

  /**
   * A stop laid on `apps`, all of one project: their new releases suspended (answers true), or each quarantined.
   * `told` (by the thread itself, not judged from the requests in flight) counts a quarantining stop toward the hold;
   * without it the caller counts it.
   */
  #laidOn(apps: readonly string[], reason: LimitReason, stop: ShardStop, buildOf: (key: string) => string | undefined, spare: (key: string) => string | undefined, told?: boolean): boolean {
    // One project's apps alone could have been running: the stop is that project's. An app of it in a rollout
    // loses its new release for it, the likelier cause: then no sibling is quarantined and the stop counts only
    // as that release's, so a rollout that trips the bound (however often before the pass without the release
    // applies) never holds back its stable release. Otherwise each suspect is quarantined (no other tenant's app
    // is touched), and a project whose apps keep being quarantined, or keep bringing new releases that stop
    // shards, is held back whole.
    const project = splitKey(apps[0]!).namespace;
    const spared = apps.flatMap((key) => {
      const build = spare(key);
      if (build === undefined) return [];
      this.#suspended(key, build, reason, stop);
      return [build];
    });
    if (spared.length > 0) {
      for (const build of spared) this.#countStop(project, `release ${build}`, reason, stop);
      return true;
    }
    for (const key of apps) this.#quarantine(key, reason, stop, buildOf);
    if (told === undefined) return false;
    // A stop the thread laid on the project counts toward its hold, whatever its apps' age (a hostile run stopped a
    // shard 11 times in 20 s with apps made 10 minutes before). Judged from the requests in flight, only apps made
    // within the window count: that is the dodge it closes (an app made for each stall), and an old app blamed for
    // another's stall (docs/runtime.md, the rule's known limit) then costs its project no more than its own quarantine.
    if (told || this.#anyFresh(apps)) this.#countStop(project, undefined, reason, stop);
    return false;
  }

  /** An app in a rollout whose new release (`build`) may have stopped its shard: that release is suspended (`RuntimeEngine`), the app not quarantined. */
  #suspended(key: string, build: string, reason: LimitReason, stop: ShardStop): void {
    this.#probation.forget(key);
    this.#options.log.warn('rollout: new release suspended', { app: key, build, reason, detail: stop.detail });
    const now = new Date().toISOString();
    const message = `${this.#why(reason, stop.sustained)} The app is in a rollout: its new release (build ${build}), the likelier cause, is no longer served on this replica; the stable release serves all its traffic.`;
    this.#options.logs.add(key, {
      time: now,
      buildId: build,
      outcome: reason === 'CPULimitExceeded' ? 'exceededCpu' : 'exceededMemory',
      status: 503,
      logs: [{ time: now, level: 'error', message }],
      exceptions: [],
    });
  }

  /** An app that may have stopped its shard, not in a rollout: quarantined. */
  #quarantine(key: string, reason: LimitReason, stop: ShardStop, buildOf: (key: string) => string | undefined): void {
    const pool = stop.generation.upstream.pool;
    const q = this.#quarantines.impose(key, reason, Date.now(), stop.sustained);
    this.#probation.forget(key);
    const message = `${this.#why(reason, stop.sustained)} It is not served on this replica for ${Math.round((q.until - q.since) / 1000)} s (offence ${q.offences}).`;
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

  /**
   * Counts a stop against `project`'s account: a quarantining one (`release` undefined), or one its new release
   * `release` was suspended for (counted once per release: a rollout tripping the bound again before its pass
   * applies is one release). Past {@link PROJECT_STOPS} quarantining stops, or {@link PROJECT_RELEASE_STOPS}
   * releases, within {@link PROJECT_STOPS_WINDOW_MS}, none of the apps of the account's projects is served on this
   * replica for a back-off of each project's own, and another project of the account that stops a shard within the
   * window is held at once: an app's quarantine ends with the app, and a suspension with the rollout, so a tenant
   * could otherwise go on stopping shards with apps, releases or projects it makes for the purpose.
   */
  #countStop(project: string, release: string | undefined, reason: LimitReason, stop: ShardStop): void {
    const now = Date.now();
    const account = this.#accountOf(project);
    const held = this.#accountsHeld.get(account);
    // A new release suspended counts as below: it never holds back its project's stable release.
    if (release === undefined && held && held.at > now - PROJECT_STOPS_WINDOW_MS && !held.projects.has(project)) {
      held.projects.add(project);
      this.#hold(project, account, reason, stop);
      return;
    }
    const recent = new Map([...(this.#accountStops.get(account) ?? [])].filter(([, at]) => at > now - PROJECT_STOPS_WINDOW_MS));
    if (release !== undefined && recent.has(release)) return;
    recent.set(release ?? `stop ${now} ${recent.size}`, now);
    this.#accountStops.set(account, recent);
    if (this.#accountStops.size > ACCOUNTS_SWEPT_PAST) this.#sweepStops(now);
    const releases = [...recent.keys()].filter((what) => what.startsWith('release ')).length;
    if (recent.size - releases < PROJECT_STOPS && releases < PROJECT_RELEASE_STOPS) return;
    this.#accountStops.delete(account);
    const projects = new Set([project, ...(this.#options.accounts?.projects(account) ?? [])]);
    this.#accountsHeld.set(account, { at: now, projects });
    for (const [other, { at }] of this.#accountsHeld) if (at <= now - PROJECT_STOPS_WINDOW_MS) this.#accountsHeld.delete(other);
    this.#options.log.warn('account held back', { account, projects: projects.size, reason, stops: recent.size - releases, releases, detail: stop.detail });
    for (const each of projects) this.#hold(each, account, reason, stop);
  }

  /** Forgets the accounts whose stops are all past the window (each is kept until its account stops again otherwise). */
  #sweepStops(now: number): void {
    for (const [account, stops] of this.#accountStops) if ([...stops.values()].every((at) => at <= now - PROJECT_STOPS_WINDOW_MS)) this.#accountStops.delete(account);
  }

  #hold(project: string, account: string, reason: LimitReason, stop: ShardStop): void {
    const q = this.#quarantines.impose(projectQuarantineKey(project), reason);
    this.#options.log.warn('project quarantined', { project, account, reason, until: new Date(q.until).toISOString(), offences: q.offences, detail: stop.detail });
  }

  /** The app is no longer served: nothing is held against it (its project's record stays). */
  forget(key: string): void {
    this.#quarantines.forget(key);
    this.#probation.forget(key);
  }

  clear(): void {
    this.#quarantines.clear();
  }

  /** What an app quarantined for `reason` did, or its project (`project`), for its owner (stable: no times or counts). */
  why(reason: LimitReason, project = false, sustained = false): string {
    return project ? this.#whyProject(reason) : this.#why(reason, sustained);
  }

  #why(reason: LimitReason, sustained = false): string {
    if (reason === 'MemoryLimitExceeded') return 'The app was stopped: it ran its runtime shard out of memory.';
    return sustained
      ? `The app was stopped: its code held most of its runtime shard's CPU time for ${this.#options.sustainedWindowMs / 1000} s while other projects' requests waited, which starves every app of its runtime shard.`
      : `The app was stopped: one of its requests ran for more than ${this.#options.cpuLimitMs} ms without yielding, which stalls every app of its runtime shard.`;
  }

  #whyProject(reason: LimitReason): string {
    const what =
      reason === 'CPULimitExceeded'
        ? `ran for more than ${this.#options.cpuLimitMs} ms without yielding, or held most of their runtime shard's CPU time while other projects' requests waited,`
        : 'ran their runtime shard out of memory';
    return `The app's project is held back: its apps (or new releases of them, or apps of other projects of the user who created it) ${what} again and again within ${PROJECT_STOPS_WINDOW_MS / 60_000} minutes, stalling every app of their runtime shards, so none of its apps is served on this replica for a while.`;
  }
}

function probationRefusal(detail: string): Refusal {
  return { status: 503, title: 'Service Unavailable', detail, retryAfter: '1', reason: 'Probation' };
}
