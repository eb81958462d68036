import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ObjectStore } from '../src/object-store/object-store.ts';
import { artifactKey } from '../src/platform/artifact-keys.ts';
import { ArtifactError, DEFAULT_ARTIFACT_LIMITS, type ArtifactSource, type BuildRef } from './engine/index.ts';

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

  /**
   * The artifact's bytes as they arrive from the bucket (never held whole). A content-derived build id is
   * checked against the bytes' SHA-256 as the stream ends: the iteration throws `ArtifactError` then, and the
   * runtime, which keeps what it unpacked aside until the artifact is read whole, drops it.
   */
  async fetch(ref: BuildRef): Promise<AsyncIterable<Uint8Array>> {
    const key = artifactKey(ref.project, ref.appId, ref.buildId);
    const info = await this.#store.head(key);
    if (!info) throw new ArtifactNotFoundError(key);
    if (info.size > this.#maxBytes) throw new ArtifactError(`the artifact of build ${ref.buildId} is ${info.size} bytes, over the limit of ${this.#maxBytes}`);
    const got = await this.#store.getStream(key);
    if (!got) throw new ArtifactNotFoundError(key);
    const prefix = CONTENT_DERIVED.exec(ref.buildId)?.[1];
    return checked(got.body, ref.buildId, prefix);
  }
}

async function* checked(body: Readable, buildId: string, prefix: string | undefined): AsyncGenerator<Uint8Array> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      yield chunk;
    }
  } finally {
    body.destroy();
  }
  if (prefix !== undefined && !hash.digest('hex').startsWith(prefix)) {
    throw new ArtifactError(`the stored artifact does not match build ${buildId} (its SHA-256 differs from the build id)`);
  }
}
