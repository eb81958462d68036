import type { BuildLoadError } from '../../src/app-artifacts/errors.ts';
import type { Generation } from './generation.ts';
import { LoadChecker, type LoadCpuBound } from './load-checker.ts';
import { LoadVerdicts } from './load-verdicts.ts';
import type { PassPlan } from './pass-plan.ts';
import { workerFingerprint, type LiveApp } from './worker-code.ts';

type Release = ReturnType<PassPlan['changedReleases']>[number];

/**
 * The gate new code passes before a shard routes to it: each app whose code or environment changed loads in
 * the checker workerd first. A build workerd refuses falls back to what the app served (`BuildLoadError`,
 * remembered, so it is not tried again); a load that failed for another reason is retried on the next pass
 * under a new loader id (workerd caches a failed id).
 */
export class LoadGate {
  readonly #verdicts = new LoadVerdicts();
  readonly #checker: LoadChecker;
  /**
   * The checker's CPU time one project's new code takes in a pass before the rest waits for the next: one load's
   * bound, so a project's turn in a pass is at most two loads long, and every other project's deploys in that pass
   * wait for at most that of it. Unbounded when the checker's CPU time cannot be read.
   */
  readonly #shareMs: number;

  /** `startChecker` starts a checker workerd with no apps; a build may take `timeoutMs` to load, and `cpu` of CPU time. */
  constructor(startChecker: () => Promise<Generation>, timeoutMs: number, cpu?: LoadCpuBound) {
    this.#checker = new LoadChecker(startChecker, timeoutMs, cpu);
    this.#shareMs = cpu?.limitMs ?? Infinity;
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
   * is every project's, and a pass answers its deploys when it ends: so the projects take turns, one check
   * each, and a project whose checks have taken its share of the checker's CPU time in this pass has the rest
   * of its changes left for the next (`plan.defer`). `spent` (project → CPU ms) is what each project's checks
   * took in the pass so far (its fallbacks are checked after its deployments).
   */
  async check(plan: PassPlan, code: Map<string, LiveApp>, spent = new Map<string, number>()): Promise<void> {
    const turns = new Map<string, Release[]>();
    for (const release of plan.changedReleases()) {
      if (this.#verdicts.loaded(workerFingerprint(release.live))) continue;
      const project = release.live.app.project;
      turns.set(project, [...(turns.get(project) ?? []), release]);
    }
    while (turns.size > 0) {
      for (const [project, releases] of turns) {
        const release = releases.shift()!;
        if (releases.length === 0) turns.delete(project);
        const { key, live, id } = release;
        // Its app's other release (a rollout's) was refused or left for later: the app's change goes as one.
        if (plan.failures.has(key) || plan.deferred.has(key)) continue;
        if ((spent.get(project) ?? 0) >= this.#shareMs) {
          plan.defer(key);
          continue;
        }
        code.set(id, live);
        const answer = await this.#checker.check(key, { id, build: live.build.buildId, limit: 1, depth: 0 });
        const error = this.#verdicts.record(workerFingerprint(live), live.build.buildId, key, answer);
        if (error) {
          // Either release of a rollout refused: the app keeps what it served, both releases as they were.
          plan.keepPrevious(key, error);
          code.delete(id);
        }
        spent.set(project, (spent.get(project) ?? 0) + (answer.cpuMs ?? 0));
      }
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
