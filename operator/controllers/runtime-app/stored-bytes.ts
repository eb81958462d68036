// The stored-builds quota counts what the bucket holds, never a Build's word for it: a Build without the platform's
// measurement (written with kubectl, or the annotation removed) is measured here by reading its artifact's size,
// once, and the figure written back, so the next pass (and cw-api's view) counts it from the cache.
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import { isConflict, isNotFound, type ObjectClient } from '../../../src/kube/index.ts';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { artifactKey } from '../../../src/platform/artifact-keys.ts';
import { measuredBytesOf, STORED_BYTES_ANNOTATION } from '../../../src/platform/stored-builds-quota.ts';

/** Builds one pass measures at most: each written back wakes its app, whose pass takes the next ones. */
export const MEASURED_PER_PASS = 20;

/**
 * Measures the builds of `builds` the platform has not: their artifact's size in the bucket (0 when it is not
 * there: nothing is stored), written on the Build. Answers whether every build was measured already.
 */
export async function measureStoredBytes(targets: { readonly builds: ObjectClient<Build>; readonly artifacts: ObjectStore }, namespace: string, builds: readonly Build[]): Promise<boolean> {
  const unmeasured = builds.filter((build) => measuredBytesOf(build) === undefined);
  for (const build of unmeasured.slice(0, MEASURED_PER_PASS)) {
    // Where the platform keeps the artifact, whatever the Build's objectKey says (build-pruning.ts).
    const stored = await targets.artifacts.head(artifactKey(namespace, build.spec.app, build.spec.buildId));
    try {
      await targets.builds.patch(namespace, build.metadata?.name ?? '', { metadata: { uid: build.metadata?.uid, annotations: { [STORED_BYTES_ANNOTATION]: String(stored?.size ?? 0) } } });
    } catch (err) {
      // Gone, or written again since it was read: the next pass measures what is there.
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
  return unmeasured.length === 0;
}
