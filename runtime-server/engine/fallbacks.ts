import type { AppDeployment } from './ports.ts';
import { sameDeployment } from './preparation-failures.ts';

/** An app's fallback: what it served before a deployment of a new build, and that deployment if it failed here. */
interface Fallback {
  readonly app: AppDeployment;
  failed?: AppDeployment;
}

/**
 * What each app served before a deployment of a new build, kept until that deployment is served. When it cannot be
 * (workerd refuses its build, its artifact is not stored), the app serves its fallback instead: on a replica that
 * serves it now, and on one that had let it go (served on demand) or never prepared it, where its next request
 * would otherwise find nothing to serve. A failed deploy never takes an app down.
 *
 * Only a new build records one: those are prepared when deployed, so an entry lasts about a pass unless the deploy
 * fails; a change of environment of an idle app (a rotated token across thousands) records none.
 */
export class Fallbacks {
  readonly #of = new Map<string, Fallback>();

  /**
   * `key` is deployed anew. `previous`: what it serves now, else the deployment it replaces unless that failed
   * here; without one, an earlier fallback stays (the app still serves it), else `recorded` becomes it (what the
   * replicas served before, for a replica that never served the app: `recordedFallback`).
   */
  deployed(key: string, previous: AppDeployment | undefined, newBuild: boolean, recorded?: AppDeployment): void {
    if (!newBuild) return;
    if (previous) this.#of.set(key, { app: previous });
    else {
      const kept = this.#of.get(key);
      if (kept) delete kept.failed;
      else if (recorded) this.#of.set(key, { app: recorded });
    }
  }

  /** `app`, the deployment of `key`, could not be prepared or loaded on this replica. */
  failed(key: string, app: AppDeployment): void {
    const fallback = this.#of.get(key);
    if (fallback && fallback.app !== app) fallback.failed = app;
  }

  /** Whether `app`, the deployment of `key`, failed here since it was deployed. */
  hasFailed(key: string, app: AppDeployment | undefined): boolean {
    const failed = this.#of.get(key)?.failed;
    return failed !== undefined && sameDeployment(failed, app);
  }

  /** The deployment `key` is served with while its own cannot be, if it has one. */
  of(key: string): AppDeployment | undefined {
    return this.#of.get(key)?.app;
  }

  /** What `key` shows as served while it is not prepared: its fallback once `desired` failed here, else `desired`. */
  shown(key: string, desired: AppDeployment): AppDeployment {
    return this.hasFailed(key, desired) ? (this.#of.get(key)?.app ?? desired) : desired;
  }

  /** `key` is removed: nothing to fall back to any more. */
  forget(key: string): void {
    this.#of.delete(key);
  }

  /** Forgets the fallbacks of the apps `serves` says serve their deployment now. */
  settle(serves: (key: string) => boolean): void {
    for (const key of this.#of.keys()) if (serves(key)) this.#of.delete(key);
  }

  get size(): number {
    return this.#of.size;
  }
}
