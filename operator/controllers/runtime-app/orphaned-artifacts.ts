// A Build a tenant deletes by hand (`kubectl delete build`, a GitOps tool's prune) leaves its artifact in the
// bucket, where nothing would count or delete it until the app goes: uploading and deleting in a loop would
// store without bound. The controller notes each Build that leaves its cache and, in the app's next pass,
// deletes the artifact when no Build of that id is there any more. A Build deleted while no operator ran is never
// seen leaving: every few hours each app's prefix is listed too, and an artifact no Build names goes once it is
// older than a deploy, a GitOps pipeline's included, takes to record its Build.
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import type { ObjectClient } from '../../../src/kube/index.ts';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { listAll } from '../../../src/object-store/list-all.ts';
import { appArtifactPrefix, artifactKey, buildResourceName } from '../../../src/platform/artifact-keys.ts';

/** How often, at most, each app's stored artifacts are listed for those no Build names. */
export const ORPHAN_SCAN_INTERVAL_MS = 6 * 60 * 60_000;
/**
 * An artifact younger than this is no orphan: a deploy stores its artifact before it creates its Build (the API's
 * within seconds; a GitOps pipeline may apply the Build after a review, docs/runtime.md says within 7 days).
 */
export const ORPHAN_GRACE_MS = 7 * 24 * 60 * 60_000;
const ARTIFACT_SUFFIX = '.tar.zst';

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

/**
 * When each app's prefix is listed next: first at a moment drawn within the interval after the app is first seen,
 * so an operator starting with 100,000 apps spreads its listings rather than making them all at once.
 */
export class OrphanScans {
  readonly #next = new Map<string, number>();
  readonly #intervalMs: number;
  readonly #random: () => number;

  constructor(intervalMs = ORPHAN_SCAN_INTERVAL_MS, random: () => number = Math.random) {
    this.#intervalMs = intervalMs;
    this.#random = random;
  }

  /** Whether the app's prefix is due to be listed at `now` (ms); if so, its next listing is an interval away. */
  due(appKey: string, now: number): boolean {
    const next = this.#next.get(appKey);
    if (next === undefined) {
      this.#next.set(appKey, now + this.#random() * this.#intervalMs);
      return false;
    }
    if (now < next) return false;
    this.#next.set(appKey, now + this.#intervalMs);
    return true;
  }

  forget(appKey: string): void {
    this.#next.delete(appKey);
  }
}

/** The build ids of the app's stored artifacts last written before `before` (ms). */
export async function artifactsStoredBefore(artifacts: ObjectStore, namespace: string, app: string, before: number): Promise<string[]> {
  const prefix = appArtifactPrefix(namespace, app);
  const ids: string[] = [];
  for await (const item of listAll(artifacts, prefix)) {
    const name = item.key.slice(prefix.length);
    if (name.endsWith(ARTIFACT_SUFFIX) && !name.includes('/') && item.lastModified.getTime() < before) ids.push(name.slice(0, -ARTIFACT_SUFFIX.length));
  }
  return ids;
}
