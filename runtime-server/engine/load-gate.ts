import type { BuildLoadError } from '../../src/app-artifacts/errors.ts';
import type { Generation } from './generation.ts';
import { LoadChecker, type LoadCpuBound } from './load-checker.ts';
import { LoadVerdicts } from './load-verdicts.ts';
import type { PassPlan } from './pass-plan.ts';
import { StartupBudget } from './startup-budget.ts';
import { workerFingerprint, type LiveApp } from './worker-code.ts';

type Release = ReturnType<PassPlan['changedReleases']>[number];

/** Apps whose first check is remembered (a replica holds at most this many apps' code checked at once, and far fewer on demand). */
const CHECKED_APPS_KEPT = 100_000;

/**
 * A change not checked in this pass: its project's checks have used their budget of the checker's CPU time. It is
 * not the build's fault; the app keeps what it served and the deploy is tried again.
 */
export class CheckBudgetError extends Error {
  constructor(project: string, retryAfterMs: number, cpuMsPerMinute: number) {
    super(
      `project ${project}'s new code has used the CPU time its loading may take on this replica (${cpuMsPerMinute} ms a minute); ` +
        `checked again in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s`,
    );
    this.name = 'CheckBudgetError';
  }
}

/** The releases in rounds: the first of each project, then the second of each, …, so no project's checks go all before another's. */
function roundsByProject(releases: readonly Release[]): Release[][] {
  const rounds: Release[][] = [];
  const seen = new Map<string, number>();
  for (const release of releases) {
    const n = seen.get(release.live.app.project) ?? 0;
    seen.set(release.live.app.project, n + 1);
    (rounds[n] ??= []).push(release);
  }
  return rounds;
}

/**
 * The gate new code passes before a shard routes to it: each app whose code or environment changed loads in
 * the checker workerd first. A build workerd refuses falls back to what the app served (`BuildLoadError`,
 * remembered, so it is not tried again); a load that failed for another reason is retried on the next pass
 * under a new loader id (workerd caches a failed id).
 */
export class LoadGate {
  readonly #verdicts = new LoadVerdicts();
  readonly #checker: LoadChecker;
  readonly #budget: StartupBudget;
  /** Apps checked here (the latest {@link CHECKED_APPS_KEPT}): a further check of one is a change its tenant made. */
  readonly #checkedApps = new Set<string>();

  /**
   * `startChecker` starts a checker workerd with no apps; a build may take `timeoutMs` to load, and `cpu` of CPU time;
   * each project's checks may take `budgetMsPerMinute` of the checker's CPU time a minute (0: no bound).
   */
  constructor(startChecker: () => Promise<Generation>, timeoutMs: number, cpu?: LoadCpuBound, budgetMsPerMinute = 0) {
    this.#checker = new LoadChecker(startChecker, timeoutMs, cpu);
    this.#budget = new StartupBudget({ cpuMsPerMinute: budgetMsPerMinute, waitMs: 0 });
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
   * loads read. A refused app keeps what it served in the plan, and its id leaves `code`. Every project's
   * deploys wait for the checks under way, so they go in rounds of one release a project, each charged to its
   * project's budget (`budget`): a project past it has the rest of its changes wait for a later pass
   * ({@link CheckBudgetError}) rather than hold everyone's.
   */
  async check(plan: PassPlan, code: Map<string, LiveApp>): Promise<void> {
    const changed = plan.changedReleases().filter(({ live }) => !this.#verdicts.loaded(workerFingerprint(live)));
    if (changed.length === 0) return;
    for (const { id, live } of changed) code.set(id, live);
    for (const round of roundsByProject(changed)) {
      const admitted: Array<{ release: Release; charge: (ms: number) => void }> = [];
      for (const release of round) {
        // An app's first check here (a replica's start, a new app) is counted, not held back: a change is what a tenant repeats.
        const first = !this.#checkedApps.has(release.key);
        const admission = first ? this.#budget.take(release.live.app.project, 0) : this.#budget.tryAdmit(release.live.app.project, 0);
        if (admission.admitted) admitted.push({ release, charge: (ms) => admission.charge(ms) });
        else this.#fail(plan, code, release, new CheckBudgetError(release.live.app.project, admission.retryAfterMs, this.#budget.cpuMsPerMinute));
      }
      if (admitted.length === 0) continue;
      const answers = await this.#checker.check(admitted.map(({ release: { key, live, id } }) => [key, { id, build: live.build.buildId, limit: 1, depth: 0 }] as const));
      admitted.forEach(({ release, charge }, i) => {
        const answer = answers[i]!;
        charge(answer.cpuMs ?? 0);
        this.#checkedApps.add(release.key);
        if (this.#checkedApps.size > CHECKED_APPS_KEPT) this.#checkedApps.delete(this.#checkedApps.values().next().value!);
        const error = this.#verdicts.record(workerFingerprint(release.live), release.live.build.buildId, release.key, answer);
        if (error) this.#fail(plan, code, release, error);
      });
    }
  }

  #fail(plan: PassPlan, code: Map<string, LiveApp>, { key, id }: Release, error: Error): void {
    // Either release of a rollout refused: the app keeps what it served, both releases as they were.
    if (!plan.failures.has(key)) plan.keepPrevious(key, error);
    code.delete(id);
  }

  /** Starts the checker workerd ahead of the first check. */
  warm(): void {
    this.#checker.warm();
  }

  stop(): Promise<void> {
    return this.#checker.stop();
  }
}
