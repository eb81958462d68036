import type { ProjectDomain } from '../apis/v1alpha1/project-domain.ts';
import { objectKey } from '../kube/index.ts';
import { demotionEndsAt } from './host-admission.ts';

/**
 * Tells `onEnd` a project when the demotion grace of one of its domains runs out (`demotionEndsAt`): that changes
 * which names its apps may serve with no object changing, and every process deciding names (each runtime replica,
 * the operator's status) must decide them again at that moment, not at the domain's next write.
 */
export class DemotionTimers {
  readonly #onEnd: (project: string) => void;
  readonly #current: (key: string) => ProjectDomain | undefined;
  readonly #timers = new Map<string, NodeJS.Timeout>();

  /** `current`: the domain as its cache has it now, looked at again when its timer fires. */
  constructor(onEnd: (project: string) => void, current: (key: string) => ProjectDomain | undefined) {
    this.#onEnd = onEnd;
    this.#current = current;
  }

  /** A ProjectDomain as its cache has it now (deleted: `gone`). */
  seen(domain: ProjectDomain, gone = false): void {
    const key = objectKey(domain);
    clearTimeout(this.#timers.get(key));
    this.#timers.delete(key);
    const project = domain.metadata?.namespace;
    const endsAt = gone ? undefined : demotionEndsAt(domain, new Date());
    if (endsAt === undefined || !project) return;
    // A millisecond past the end: `domainServes` counts the grace's last instant as within it.
    const timer = setTimeout(
      () => {
        this.#timers.delete(key);
        // The wall clock may be behind the timer's (a clock stepped back): not over yet, it waits again.
        const now = this.#current(key);
        if (now && demotionEndsAt(now, new Date()) !== undefined) this.seen(now);
        else this.#onEnd(project);
      },
      Math.max(0, endsAt - Date.now()) + 1,
    );
    timer.unref();
    this.#timers.set(key, timer);
  }

  stop(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
