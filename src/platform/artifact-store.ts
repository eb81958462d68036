import { UnavailableError } from '../errors.ts';
import type { ObjectStore } from '../object-store/object-store.ts';

/**
 * The object store build artifacts live in. An API server started without one (no CW_S3_BUCKET) still
 * serves every route, and the ones that need the bucket answer 503 saying why, before changing anything.
 */
export function requireArtifactStore(store: ObjectStore | undefined): ObjectStore {
  if (!store) {
    throw new UnavailableError('Build storage is not configured on this API server (no object store); deploys and rollbacks are unavailable.', 60);
  }
  return store;
}
