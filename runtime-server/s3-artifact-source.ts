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

/** The bucket kept an artifact's bytes waiting past the read's bound: worth retrying, the build is not at fault. */
export class ArtifactReadTimeoutError extends Error {
  override readonly name = 'ArtifactReadTimeoutError';
}

export interface S3ArtifactSourceOptions {
  /** Objects bigger than this are refused without being read (default: the runtime's upload limit, 64 MiB). */
  maxBytes?: number;
  /**
   * How long the bucket may keep the next part of an artifact waiting; the whole read may wait this plus a second
   * per MiB (default 30 s, as the object store's own requests). Only waits for the bucket count, not the reader's.
   */
  readWaitMs?: number;
}

const MIB = 1024 * 1024;

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
  readonly #readWaitMs: number;

  constructor(store: ObjectStore, options: S3ArtifactSourceOptions = {}) {
    this.#store = store;
    this.#maxBytes = options.maxBytes ?? DEFAULT_ARTIFACT_LIMITS.maxCompressedBytes;
    this.#readWaitMs = options.readWaitMs ?? 30_000;
  }

  /**
   * The artifact's bytes as they arrive from the bucket (never held whole). A content-derived build id is
   * checked against the bytes' SHA-256 as the stream ends: the iteration throws `ArtifactError` then, and the
   * runtime, which keeps what it unpacked aside until the artifact is read whole, drops it. A read the bucket stalls
   * throws `ArtifactReadTimeoutError` (the object store bounds a request only until its headers): a hung read would
   * hold the app's first requests and the replica's background checks for as long as it hangs.
   */
  async fetch(ref: BuildRef): Promise<AsyncIterable<Uint8Array>> {
    const key = artifactKey(ref.project, ref.appId, ref.buildId);
    const info = await this.#store.head(key);
    if (!info) throw new ArtifactNotFoundError(key);
    if (info.size > this.#maxBytes) throw new ArtifactError(`the artifact of build ${ref.buildId} is ${info.size} bytes, over the limit of ${this.#maxBytes}`);
    const got = await this.#store.getStream(key);
    if (!got) throw new ArtifactNotFoundError(key);
    const prefix = CONTENT_DERIVED.exec(ref.buildId)?.[1];
    const waitMs = { next: this.#readWaitMs, total: this.#readWaitMs + Math.floor(info.size / MIB) * 1000 };
    return checked(got.body, ref.buildId, prefix, waitMs);
  }
}

async function* checked(body: Readable, buildId: string, prefix: string | undefined, waitMs: { next: number; total: number }): AsyncGenerator<Uint8Array> {
  const hash = createHash('sha256');
  const chunks = (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  let left = waitMs.total;
  try {
    for (;;) {
      const asked = performance.now();
      const next = await within(chunks.next(), Math.min(waitMs.next, left), buildId);
      left -= performance.now() - asked;
      if (next.done) break;
      hash.update(next.value);
      yield next.value;
    }
  } finally {
    body.destroy();
  }
  if (prefix !== undefined && !hash.digest('hex').startsWith(prefix)) {
    throw new ArtifactError(`the stored artifact does not match build ${buildId} (its SHA-256 differs from the build id)`);
  }
}

/** `next`, or `ArtifactReadTimeoutError` once `ms` pass first (the stream is destroyed by the caller then). */
async function within<T>(next: Promise<T>, ms: number, buildId: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ArtifactReadTimeoutError(`the bucket stalled sending build ${buildId}'s artifact (nothing within ${Math.round(ms)} ms)`)), Math.max(0, ms));
  });
  try {
    return await Promise.race([next, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
