import { createHash } from 'node:crypto';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { artifactKey } from '../../src/platform/artifact-keys.ts';
import { ArtifactError, DEFAULT_ARTIFACT_LIMITS, type ArtifactSource, type BuildRef } from '../../src/workerd/index.ts';

/** The build's artifact is not in the bucket (yet): worth retrying, since an upload may still come. */
export class ArtifactNotFoundError extends Error {
  override readonly name = 'ArtifactNotFoundError';
  readonly key: string;
  constructor(key: string) {
    super(`no artifact at ${key}`);
    this.key = key;
  }
}

export interface S3ArtifactSourceOptions {
  /** Objects bigger than this are refused without being read (default: the runtime's upload limit, 64 MiB). */
  maxBytes?: number;
}

// A build id the API server derives from the artifact's digest (`buildIdFor`): `b-` + 16 hex digits.
const CONTENT_DERIVED = /^b-([0-9a-f]{16})$/;

/**
 * The runtime's `ArtifactSource` on the platform bucket: a build is the object at
 * `artifactKey(project, app, buildId)`, where the API server (or a GitOps pipeline) stored it. Reads go
 * through the `ObjectStore` port (`S3ObjectStore` in production, with its retries and metrics).
 *
 * The bucket is trusted no more than the upload was: an object larger than the upload limit is refused
 * before it is read, and a content-derived build id must match the bytes' SHA-256, so an artifact replaced
 * behind the platform's back is refused (`ArtifactError`) instead of served under the old build's name.
 */
export class S3ArtifactSource implements ArtifactSource {
  readonly #store: ObjectStore;
  readonly #maxBytes: number;

  constructor(store: ObjectStore, options: S3ArtifactSourceOptions = {}) {
    this.#store = store;
    this.#maxBytes = options.maxBytes ?? DEFAULT_ARTIFACT_LIMITS.maxCompressedBytes;
  }

  async fetch(ref: BuildRef): Promise<Uint8Array> {
    const key = artifactKey(ref.project, ref.appId, ref.buildId);
    const info = await this.#store.head(key);
    if (!info) throw new ArtifactNotFoundError(key);
    if (info.size > this.#maxBytes) throw new ArtifactError(`the artifact of build ${ref.buildId} is ${info.size} bytes, over the limit of ${this.#maxBytes}`);
    const got = await this.#store.get(key);
    if (!got || got.kind !== 'object') throw new ArtifactNotFoundError(key);
    const prefix = CONTENT_DERIVED.exec(ref.buildId)?.[1];
    if (prefix !== undefined && !createHash('sha256').update(got.body).digest('hex').startsWith(prefix)) {
      throw new ArtifactError(`the stored artifact does not match build ${ref.buildId} (its SHA-256 differs from the build id)`);
    }
    return got.body;
  }
}
