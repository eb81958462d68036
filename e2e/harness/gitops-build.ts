// A build deployed without the API, as a GitOps pipeline (or the API's deploy route) does it: the artifact at
// its key in the bucket, and a Build owned by the RuntimeApp.
import { createHash } from 'node:crypto';
import type { Build } from '../../src/apis/v1alpha1/build.ts';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import type { ObjectClient } from '../../src/kube/index.ts';
import type { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import { artifactKey, buildIdFor, buildResourceName } from '../../src/platform/artifact-keys.ts';

/** Stores `artifact` for `app` and records its Build; answers the build id (for `spec.activeBuildId`). */
export async function storeBuild(clients: { bucket: S3ObjectStore; builds: ObjectClient<Build> }, namespace: string, app: RuntimeApp, artifact: Uint8Array): Promise<string> {
  const digest = createHash('sha256').update(artifact).digest('hex');
  const buildId = buildIdFor(digest);
  const name = app.metadata?.name ?? '';
  const key = artifactKey(namespace, name, buildId);
  await clients.bucket.put(key, artifact);
  await clients.builds.create({
    metadata: {
      name: buildResourceName(name, buildId),
      namespace,
      ownerReferences: [{ apiVersion: 'cloudwright.dev/v1alpha1', kind: 'RuntimeApp', name, uid: app.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: { app: name, buildId, digest, size: artifact.length, objectKey: key },
  });
  return buildId;
}
