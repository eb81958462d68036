// A Build a tenant deletes by hand (`kubectl delete build`, a GitOps tool's prune) leaves its artifact in the
// bucket, where nothing would count or delete it until the app goes: uploading and deleting in a loop would
// store without bound. The controller notes each Build that leaves its cache and, in the app's next pass,
// deletes the artifact when no Build of that id is there any more.
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import type { ObjectClient } from '../../../src/kube/index.ts';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { artifactKey, buildResourceName } from '../../../src/platform/artifact-keys.ts';

/** Build ids seen leaving the cache, by their app's `namespace/name` key, until the app's pass has looked at them. */
export class DeletedBuilds {
  readonly #byApp = new Map<string, Set<string>>();

  record(appKey: string, buildId: string): void {
    const ids = this.#byApp.get(appKey);
    if (ids) ids.add(buildId);
    else this.#byApp.set(appKey, new Set([buildId]));
  }

  /** The ids noted for the app, which are forgotten: one still to do is noted again ({@link record}). */
  take(appKey: string): string[] {
    const ids = this.#byApp.get(appKey);
    this.#byApp.delete(appKey);
    return ids ? [...ids] : [];
  }

  /** The app is gone or going: its artifacts go with it (the finalizer's teardown). */
  forget(appKey: string): void {
    this.#byApp.delete(appKey);
  }
}

/**
 * Deletes the artifact of each of the app's `buildIds` no Build names now, read live (an upload of the same
 * content may have recorded it again since), but never one in `kept`: the runtime reads the active build's
 * artifact whether or not its Build is there, and the Build applied again finds it. Answers how many went.
 */
export async function deleteOrphanedArtifacts(
  targets: { readonly builds: ObjectClient<Build>; readonly artifacts: ObjectStore },
  namespace: string,
  app: string,
  buildIds: readonly string[],
  kept: ReadonlySet<string>,
): Promise<number> {
  let deleted = 0;
  for (const buildId of buildIds) {
    if (kept.has(buildId) || (await targets.builds.get(namespace, buildResourceName(app, buildId)))) continue;
    await targets.artifacts.delete(artifactKey(namespace, app, buildId));
    deleted++;
  }
  return deleted;
}
