import type { BuildLoadError } from '../../src/app-artifacts/errors.ts';
import type { Generation } from './generation.ts';
import { LoadChecker, type LoadCpuBound } from './load-checker.ts';
import { LoadVerdicts } from './load-verdicts.ts';
import type { PassPlan } from './pass-plan.ts';
import { workerFingerprint, type LiveApp } from './worker-code.ts';

/**
 * The gate new code passes before a shard routes to it: each app whose code or environment changed loads in
 * the checker workerd first. A build workerd refuses falls back to what the app served (`BuildLoadError`,
 * remembered, so it is not tried again); a load that failed for another reason is retried on the next pass
 * under a new loader id (workerd caches a failed id).
 */
export class LoadGate {
  readonly #verdicts = new LoadVerdicts();
  readonly #checker: LoadChecker;

  /** `startChecker` starts a checker workerd with no apps; a build may take `timeoutMs` to load, and `cpu` of CPU time. */
  constructor(startChecker: () => Promise<Generation>, timeoutMs: number, cpu?: LoadCpuBound) {
    this.#checker = new LoadChecker(startChecker, timeoutMs, cpu);
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
   * loads read. A refused app keeps what it served in the plan, and its id leaves `code`.
   */
  async check(plan: PassPlan, code: Map<string, LiveApp>): Promise<void> {
    const changed = plan.changedReleases().filter(({ live }) => !this.#verdicts.loaded(workerFingerprint(live)));
    if (changed.length === 0) return;
    for (const { id, live } of changed) code.set(id, live);
    const answers = await this.#checker.check(changed.map(({ key, live, id }) => [key, { id, build: live.build.buildId, limit: 1, depth: 0 }] as const));
    changed.forEach(({ key, live, id }, i) => {
      const error = this.#verdicts.record(workerFingerprint(live), live.build.buildId, key, answers[i]!);
      if (!error) return;
      // Either release of a rollout refused: the app keeps what it served, both releases as they were.
      if (!plan.failures.has(key)) plan.keepPrevious(key, error);
      code.delete(id);
    });
  }

  /** Starts the checker workerd ahead of the first check. */
  warm(): void {
    this.#checker.warm();
  }

  stop(): Promise<void> {
    return this.#checker.stop();
  }
}
