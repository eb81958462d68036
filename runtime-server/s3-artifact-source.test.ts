import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../src/object-store/memory-object-store.ts';
import { artifactKey, buildIdFor } from '../src/platform/artifact-keys.ts';
import { ArtifactError } from './engine/index.ts';
import { ArtifactNotFoundError, ArtifactReadTimeoutError, S3ArtifactSource } from './s3-artifact-source.ts';
import { isBuildRefusal } from './engine/preparation-failures.ts';

const bytes = new TextEncoder().encode('not really a tar.zst, but the source does not parse');
const buildId = buildIdFor(createHash('sha256').update(bytes).digest('hex'));

/** Reads the source's stream to its end (the digest is checked there). */
async function read(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('S3ArtifactSource', () => {
  it('reads the artifact at the key the API server writes', async () => {
    const store = new MemoryObjectStore();
    await store.put(artifactKey('proj', 'hello', buildId), bytes);
    expect(await read(await new S3ArtifactSource(store).fetch({ project: 'proj', appId: 'hello', buildId }))).toEqual(Buffer.from(bytes));
  });

  it('says when there is no artifact (retryable: an upload may still come)', async () => {
    const source = new S3ArtifactSource(new MemoryObjectStore());
    await expect(source.fetch({ project: 'proj', appId: 'hello', buildId })).rejects.toThrow(ArtifactNotFoundError);
  });

  it('refuses bytes that do not hash to a content-derived build id, as their stream ends', async () => {
    const store = new MemoryObjectStore();
    await store.put(artifactKey('proj', 'hello', 'b-0000000000000000'), bytes);
    const stream = await new S3ArtifactSource(store).fetch({ project: 'proj', appId: 'hello', buildId: 'b-0000000000000000' });
    await expect(read(stream)).rejects.toThrow(ArtifactError);
  });

  it('accepts any bytes under a build id that is not content-derived (a GitOps pipeline may name builds)', async () => {
    const store = new MemoryObjectStore();
    await store.put(artifactKey('proj', 'hello', 'v1'), bytes);
    expect(await read(await new S3ArtifactSource(store).fetch({ project: 'proj', appId: 'hello', buildId: 'v1' }))).toEqual(Buffer.from(bytes));
  });

  it('refuses an object over the size limit without reading it', async () => {
    const store = new MemoryObjectStore();
    await store.put(artifactKey('proj', 'hello', 'v1'), bytes);
    await expect(new S3ArtifactSource(store, { maxBytes: 10 }).fetch({ project: 'proj', appId: 'hello', buildId: 'v1' })).rejects.toThrow(/over the limit of 10/);
  });

  it('gives up on a read the bucket stalls, as one worth retrying, and lets the stream go', async () => {
    const stalled = new Readable({ read() {} });
    stalled.push(bytes.subarray(0, 10));
    const store = new (class extends MemoryObjectStore {
      override async getStream() {
        return { body: stalled, size: bytes.length, etag: '"x"' };
      }
    })();
    await store.put(artifactKey('proj', 'hello', 'v1'), bytes);
    const stream = await new S3ArtifactSource(store, { readWaitMs: 30 }).fetch({ project: 'proj', appId: 'hello', buildId: 'v1' });
    const error = await read(stream).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ArtifactReadTimeoutError);
    expect(isBuildRefusal(error)).toBe(false);
    expect(stalled.destroyed).toBe(true);
  });
});
