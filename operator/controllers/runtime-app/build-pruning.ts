import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { isConflict, isNotFound, type ObjectClient } from '../../../src/kube/index.ts';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { newestFirst } from '../../../src/platform/app-view.ts';
import { artifactKey } from '../../../src/platform/artifact-keys.ts';
import { countedBytesOf, keptBuilds, storedBytes } from '../../../src/platform/stored-builds-quota.ts';

/** Builds one pass deletes at most (oldest first): each deletion re-checks the app, which takes the next ones. */
export const PRUNED_PER_PASS = 10;

/**
 * Of an app's builds, the ones retention lets go: those past the `keep` most recently uploaded, oldest first, at
 * most {@link PRUNED_PER_PASS}, never one in `kept` (the active build, and whatever a replica still serves: it
 * serves the previous build until the new one loads, and a rollback to it must work).
 */
export function buildsToPrune(builds: readonly Build[], keep: number, kept: ReadonlySet<string>): Build[] {
  return newestFirst(builds)
    .slice(keep)
    .toReversed()
    .filter((build) => !kept.has(build.spec.buildId))
    .slice(0, PRUNED_PER_PASS);
}

/**
 * Of a project's builds, the ones its stored-builds quota lets go: the least recently uploaded first, whichever
 * app's, never one `kept` names, until what is left fits `quota`; at most {@link PRUNED_PER_PASS}.
 */
export function buildsPastQuota(builds: readonly Build[], quota: number, kept: (build: Build) => boolean): Build[] {
  let excess = storedBytes(builds) - quota;
  // Every reconcile of every app asks, and the project's builds nearly always fit: sort only when they do not.
  if (excess <= 0) return [];
  const due: Build[] = [];
  for (const build of newestFirst(builds).toReversed()) {
    if (excess <= 0 || due.length === PRUNED_PER_PASS) break;
    if (kept(build)) continue;
    due.push(build);
    excess -= countedBytesOf(build);
  }
  return due;
}

export interface PruneTargets {
  readonly apps: ObjectClient<RuntimeApp>;
  readonly builds: ObjectClient<Build>;
  readonly artifacts: ObjectStore;
}

/**
 * Deletes each build: the Build first (only the one seen, by uid), then its artifact, so nothing names an
 * artifact that is gone (a crash in between leaves an artifact no Build names, which the app's deletion
 * removes). The app is read live before each: a rollback may have made an old build active, or a rollout its
 * stable one, since the cache was read. Answers how many went.
 */
export async function pruneBuilds(targets: PruneTargets, namespace: string, appName: string, builds: readonly Build[]): Promise<number> {
  let pruned = 0;
  for (const build of builds) {
    const app = await targets.apps.get(namespace, appName);
    if (!app || app.metadata?.deletionTimestamp) return pruned;
    if (keptBuilds(app, []).has(build.spec.buildId)) continue;
    try {
      await targets.builds.delete(namespace, build.metadata?.name ?? '', { preconditions: { uid: build.metadata?.uid ?? '' } });
    } catch (err) {
      // Gone already, or replaced by a Build of the same name uploaded since: not this pass's to delete.
      if (isNotFound(err) || isConflict(err)) continue;
      throw err;
    }
    // Where the API stores the build and the runtime reads it, never the Build's own `objectKey`: a tenant may
    // write a Build by hand, and its objectKey could name any object of the bucket (another tenant's).
    await targets.artifacts.delete(artifactKey(namespace, appName, build.spec.buildId));
    pruned++;
  }
  return pruned;
}
