import { BuildLoadError } from '../../src/app-artifacts/errors.ts';
import type { RoutedApp } from './dispatcher/routing-table.ts';
import type { LoadCheck } from './load-checker.ts';
import { LoadVerdicts } from './load-verdicts.ts';
import type { PassPlan } from './pass-plan.ts';
import { workerFingerprint, type LiveApp } from './worker-code.ts';

type Release = ReturnType<PassPlan['changedReleases']>[number];

/** What the gate loads builds in: {@link LoadChecker}, one build at a time. */
export interface BuildChecker {
  check(key: string, app: RoutedApp): Promise<LoadCheck>;
  warm(): void;
  stop(): Promise<void>;
  readonly total: number;
}

/**
 * The checker's CPU time an account's new code takes in a pass before the rest waits for the next pass. Small, as
 * every other account's deploys in the pass wait for it: an account's part of a pass is then this and one load
 * more (a load is bounded, 1.5 s at the defaults); yet enough for dozens of small workers (a few ms each) at once.
 * Per account (the user who created the projects), not per project: one person's 50 projects share one.
 */
export const CHECK_SHARE_MS = 250;

/** A build whose load failed for now is tried again after this, doubled with each failure in a row, up to {@link RETRY_MAX_MS}. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;

/** Changes left for a later pass remembered (at most; the oldest forgotten first). */
const WAITING_KEPT = 100_000;

export interface LoadGateOptions {
  /** The checker's CPU time one account's new code takes in a pass before the rest waits for the next (default {@link CHECK_SHARE_MS}). */
  readonly shareMs?: number;
  /** Whom a project's checks count against (default: each project its own account). */
  readonly accountOf?: (project: string) => string;
  readonly now?: () => number;
}

/**
 * The gate new code passes before a shard routes to it: each app whose code or environment changed loads in
 * the checker workerd first. A build workerd refuses falls back to what the app served (`BuildLoadError`,
 * remembered, so it is not tried again); a load that failed for another reason is tried again after a backoff,
 * under a new loader id (workerd caches a failed id).
 */
export class LoadGate {
  readonly #verdicts = new LoadVerdicts();
  readonly #checker: BuildChecker;
  readonly #shareMs: number;
  readonly #accountOf: (project: string) => string;
  /**
   * Builds whose load failed for now (not a refusal), by fingerprint: not tried again before `until`, so one that
   * keeps failing costs no pass its checker time, and a pass left with nothing else to do starts no next one.
   */
  readonly #failedForNow = new Map<string, { readonly until: number; readonly error: Error }>();
  readonly #now: () => number;
  /** The apps whose change was left for a later pass, in the order they were first left: they go first then. */
  readonly #waiting = new Map<string, number>();
  #left = 0;

  /** `checker` loads the builds; each account's checks take `shareMs` of its CPU time in a pass before the rest wait. */
  constructor(checker: BuildChecker, options: LoadGateOptions = {}) {
    this.#checker = checker;
    this.#shareMs = options.shareMs ?? CHECK_SHARE_MS;
    this.#accountOf = options.accountOf ?? ((project) => project);
    this.#now = options.now ?? Date.now;
  }

  /** Builds checked since start. */
  get total(): number {
    return this.#checker.total;
  }

  /** The loader id of a deployment: its fingerprint, and a new one after each failed attempt. */
  idOf(live: LiveApp, tailed: boolean): string {
    const fingerprint = workerFingerprint(live);
    return `${live.app.project}/${live.app.appId}@${live.build.buildId}~${fingerprint}~${this.#verdicts.attempts(fingerprint)}${tailed ? '~tailed' : ''}`;
  }

  /** The CPU time this build and environment took to load when checked, if it was. */
  loadCpuMs(live: LiveApp): number | undefined {
    return this.#verdicts.loadCpuMs(workerFingerprint(live));
  }

  /** Why workerd refused this build and environment before, if it did. */
  refusal(live: LiveApp): BuildLoadError | undefined {
    return this.#verdicts.refusal(workerFingerprint(live));
  }

  /**
   * Checks what `plan` changes and has not loaded before; `code` (loader id → app) is what the checker's
   * loads read. A refused app keeps what it served in the plan, and its id leaves `code`. The checker's thread
   * is every project's, and a pass answers its deploys when it ends: so an account whose checks have taken its
   * share of the checker's CPU time in the pass has the rest of its changes left for the next (`plan.defer`),
   * and those go first there, so each pass makes progress on them whatever else of the account keeps failing.
   * `spent` (account → CPU ms) is what each account's checks took in the pass so far (its fallbacks are checked
   * after its deployments).
   */
  async check(plan: PassPlan, code: Map<string, LiveApp>, spent = new Map<string, number>()): Promise<void> {
    const releases = plan.changedReleases().filter(({ live }) => !this.#verdicts.loaded(workerFingerprint(live)));
    const waited = (r: Release) => this.#waiting.get(r.key) ?? Number.MAX_SAFE_INTEGER;
    releases.sort((a, b) => waited(a) - waited(b));
    for (const { key, live, id } of releases) {
      // Its app's other release (a rollout's) was refused or left for later: the app's change goes as one.
      if (plan.failures.has(key) || plan.deferred.has(key)) continue;
      const account = this.#accountOf(live.app.project);
      const fingerprint = workerFingerprint(live);
      const failed = this.#failedForNow.get(fingerprint);
      if (failed && failed.until > this.#now()) {
        plan.keepPrevious(key, failed.error);
        continue;
      }
      if ((spent.get(account) ?? 0) >= this.#shareMs) {
        plan.defer(key);
        if (!this.#waiting.has(key)) this.#waiting.set(key, this.#left++);
        if (this.#waiting.size > WAITING_KEPT) this.#waiting.delete(this.#waiting.keys().next().value!);
        continue;
      }
      code.set(id, live);
      const answer = await this.#checker.check(key, { id, build: live.build.buildId, limit: 1, depth: 0 });
      spent.set(account, (spent.get(account) ?? 0) + (answer.cpuMs ?? 0));
      const error = this.#verdicts.record(fingerprint, live.build.buildId, key, answer);
      this.#failedForNow.delete(fingerprint);
      if (!error) continue;
      if (!(error instanceof BuildLoadError)) {
        const backoff = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(this.#verdicts.attempts(fingerprint) - 1, 16));
        this.#failedForNow.set(fingerprint, { until: this.#now() + backoff, error });
        if (this.#failedForNow.size > WAITING_KEPT) this.#failedForNow.delete(this.#failedForNow.keys().next().value!);
      }
      // Either release of a rollout refused: the app keeps what it served, both releases as they were.
      plan.keepPrevious(key, error);
      code.delete(id);
    }
    // Changes checked in full (a rollout's both releases) no longer wait; one left for later keeps its place.
    for (const { key } of releases) if (!plan.deferred.has(key)) this.#waiting.delete(key);
  }

  /** Starts the checker workerd ahead of the first check. */
  warm(): void {
    this.#checker.warm();
  }

  stop(): Promise<void> {
    return this.#checker.stop();
  }
}
