import type { BuildLoadError } from '../../src/app-artifacts/errors.ts';
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
 * The checker's CPU time a project's new code takes in a pass before the rest waits for the next pass. Small, as
 * every other project's deploys in the pass wait for it: a project's part of a pass is then this and one load
 * more (a load is bounded, 1.5 s at the defaults); yet enough for dozens of small workers (a few ms each) at once.
 */
export const CHECK_SHARE_MS = 250;

/** Changes left for a later pass remembered (at most; the oldest forgotten first). */
const WAITING_KEPT = 100_000;

/**
 * The gate new code passes before a shard routes to it: each app whose code or environment changed loads in
 * the checker workerd first. A build workerd refuses falls back to what the app served (`BuildLoadError`,
 * remembered, so it is not tried again); a load that failed for another reason is retried on the next pass
 * under a new loader id (workerd caches a failed id).
 */
export class LoadGate {
  readonly #verdicts = new LoadVerdicts();
  readonly #checker: BuildChecker;
  /** The checker's CPU time one project's new code takes in a pass before the rest waits for the next. */
  readonly #shareMs: number;
  /** The apps whose change was left for a later pass, in the order they were first left: they go first then. */
  readonly #waiting = new Map<string, number>();
  #left = 0;

  /** `checker` loads the builds; each project's checks take `shareMs` of its CPU time in a pass before the rest wait. */
  constructor(checker: BuildChecker, shareMs = CHECK_SHARE_MS) {
    this.#checker = checker;
    this.#shareMs = shareMs;
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
   * is every project's, and a pass answers its deploys when it ends: so a project whose checks have taken its
   * share of the checker's CPU time in the pass has the rest of its changes left for the next (`plan.defer`),
   * and those go first there, so each pass makes progress on them whatever else of the project keeps failing.
   * `spent` (project → CPU ms) is what each project's checks took in the pass so far (its fallbacks are checked
   * after its deployments).
   */
  async check(plan: PassPlan, code: Map<string, LiveApp>, spent = new Map<string, number>()): Promise<void> {
    const releases = plan.changedReleases().filter(({ live }) => !this.#verdicts.loaded(workerFingerprint(live)));
    const waited = (r: Release) => this.#waiting.get(r.key) ?? Number.MAX_SAFE_INTEGER;
    releases.sort((a, b) => waited(a) - waited(b));
    for (const { key, live, id } of releases) {
      // Its app's other release (a rollout's) was refused or left for later: the app's change goes as one.
      if (plan.failures.has(key) || plan.deferred.has(key)) continue;
      const project = live.app.project;
      if ((spent.get(project) ?? 0) >= this.#shareMs) {
        plan.defer(key);
        if (!this.#waiting.has(key)) this.#waiting.set(key, this.#left++);
        if (this.#waiting.size > WAITING_KEPT) this.#waiting.delete(this.#waiting.keys().next().value!);
        continue;
      }
      this.#waiting.delete(key);
      code.set(id, live);
      const answer = await this.#checker.check(key, { id, build: live.build.buildId, limit: 1, depth: 0 });
      spent.set(project, (spent.get(project) ?? 0) + (answer.cpuMs ?? 0));
      const error = this.#verdicts.record(workerFingerprint(live), live.build.buildId, key, answer);
      if (!error) continue;
      // Either release of a rollout refused: the app keeps what it served, both releases as they were.
      plan.keepPrevious(key, error);
      code.delete(id);
    }
  }

  /** Starts the checker workerd ahead of the first check. */
  warm(): void {
    this.#checker.warm();
  }

  stop(): Promise<void> {
    return this.#checker.stop();
  }
}
