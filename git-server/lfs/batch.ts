// The LFS batch API (git-lfs docs/api/batch.md): for each object, the actions a client takes next, or why not.
import { Type, type Static } from '@fastify/type-provider-typebox';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { lfsObjectKey, type RepoPath } from '../../src/repo-store/index.ts';
import type { ActionLinks, LfsAction } from './links.ts';
import { isOid } from './oid.ts';

/** The most objects one batch may name (git-lfs sends 100 at a time). */
export const MAX_BATCH_OBJECTS = 1000;
/** Object lookups in flight at once for one batch. */
const LOOKUP_CONCURRENCY = 8;

/** The request body. Unknown fields are allowed: the protocol grows by adding them. */
export const BatchRequest = Type.Object({
  operation: Type.Union([Type.Literal('download'), Type.Literal('upload')]),
  transfers: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
  ref: Type.Optional(Type.Object({ name: Type.String({ maxLength: 4096 }) })),
  objects: Type.Array(Type.Object({ oid: Type.String({ maxLength: 200 }), size: Type.Integer({ minimum: 0 }) }), {
    maxItems: MAX_BATCH_OBJECTS,
  }),
  hash_algo: Type.Optional(Type.String({ maxLength: 50 })),
});
export type BatchRequest = Static<typeof BatchRequest>;

export interface BatchObject {
  oid: string;
  size: number;
  authenticated?: boolean;
  actions?: { download?: LfsAction; upload?: LfsAction; verify?: LfsAction };
  error?: { code: number; message: string };
}

export interface BatchResponse {
  transfer: 'basic';
  objects: BatchObject[];
  hash_algo: 'sha256';
}

export interface BatchContext {
  objects: ObjectStore;
  repo: RepoPath;
  links: ActionLinks;
  maxObjectBytes: number;
  /** Aborts when the client left: no further lookup starts. */
  signal?: AbortSignal;
}

/**
 * Answers a batch whose operation, transfer and hash algorithm were already accepted. Per object: download of
 * a missing object is a 404 error; upload of a present one has no actions (nothing to do); upload of a
 * missing one gets `upload` and `verify`; a bad oid or a size over the limit is a 422 error.
 */
export async function answerBatch(request: BatchRequest, ctx: BatchContext): Promise<BatchResponse> {
  const objects = await mapBounded(request.objects, LOOKUP_CONCURRENCY, (object) => {
    ctx.signal?.throwIfAborted();
    return answerObject(request.operation, object, ctx);
  });
  return { transfer: 'basic', objects, hash_algo: 'sha256' };
}

async function answerObject(operation: BatchRequest['operation'], { oid, size }: { oid: string; size: number }, ctx: BatchContext): Promise<BatchObject> {
  if (!isOid(oid)) return { oid, size, error: { code: 422, message: 'not an LFS object id: expected 64 lowercase hex digits of SHA-256' } };
  if (size > ctx.maxObjectBytes) return { oid, size, error: { code: 422, message: `LFS objects may be at most ${ctx.maxObjectBytes} bytes` } };
  const stored = await ctx.objects.head(lfsObjectKey(ctx.repo, oid));
  if (stored && stored.size !== size) {
    return { oid, size, error: { code: 422, message: `the object with this oid has ${stored.size} bytes, not ${size}` } };
  }
  if (operation === 'download') {
    if (!stored) return { oid, size, error: { code: 404, message: 'object does not exist' } };
    return { oid, size, authenticated: true, actions: { download: ctx.links.download(oid) } };
  }
  if (stored) return { oid, size, authenticated: true };
  return { oid, size, authenticated: true, actions: { upload: ctx.links.upload(oid, size), verify: ctx.links.verify() } };
}

/** `items.map(fn)` with at most `limit` calls in flight, answers in input order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
