// Git LFS under `/{owner}/{repo}/info/lfs/`: the batch API and the basic transfer (git-lfs docs/api), objects
// stored in the bucket at `lfsObjectKey`. Downloads stream from the store and uploads through a spool file,
// so no object is ever held in memory whole.
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { lfsObjectKey, parseUrlRepoPath, RepoNotFoundError, type RepoPath } from '../../src/repo-store/index.ts';
import { requireScope } from '../auth/index.ts';
import { answerBatch, BatchRequest } from './batch.ts';
import { LfsError, invalidOid, objectNotFound, tooLarge } from './lfs-errors.ts';
import { actionLinks } from './links.ts';
import { isOid } from './oid.ts';
import { receiveObject } from './receive-object.ts';
import type { SpoolBudget } from '../plumbing/spool-budget.ts';
import type { QuotaReservation } from '../plumbing/storage-quota.ts';
import { FetchSlots, type FetchBounds, type SlotKind } from '../fetch-slots.ts';
import { callerOf, inTurn, takeTurn } from '../request-turn.ts';

/** What the LFS routes need. */
export interface LfsDependencies {
  readonly objects: ObjectStore;
  readonly repos: { exists(repo: RepoPath): Promise<boolean> };
  /** Base URL of the service for action links; absent: the request's scheme and Host. */
  readonly publicUrl?: string;
  /** The largest object accepted. Default 5 GiB. */
  readonly maxObjectBytes?: number;
  /** Where uploads are spooled while they are checked. Default the OS temporary directory. */
  readonly spoolDir?: string;
  /** What uploads being received may hold on the disk, per owner and in all (shared with pushes). */
  readonly spool: SpoolBudget;
  /** What each repository may store: counts `bytes` as being written, or throws `StorageQuotaError` (507). */
  readonly quota?: { reserve(repo: RepoPath, bytes: number): Promise<QuotaReservation> };
  /** Downloads streaming at once (default {@link DEFAULT_LFS_DOWNLOAD_BOUNDS}). */
  readonly downloadBounds?: FetchBounds;
  /** Batch requests answered at once (default {@link DEFAULT_LFS_BATCH_BOUNDS}). */
  readonly batchBounds?: FetchBounds;
}

/**
 * Downloads streaming from the bucket at once, per caller, per owner and on the instance. Each holds one of the
 * bucket client's connections (50, shared with every manifest, log and pack request of the instance) for as long as
 * its client reads: 60 read a byte every few seconds took them all, and every tenant's pushes and commits answered
 * 503 after 120 s (found in review). 24 leaves the rest to the instance's other work.
 */
export const DEFAULT_LFS_DOWNLOAD_BOUNDS: FetchBounds = Object.freeze({ perCaller: 8, perOwner: 12, total: 24, waitMs: 30_000 });
const LFS_DOWNLOADS: SlotKind = { what: 'LFS downloads', codes: { owner: 'owner_downloads_limit', instance: 'downloads_busy' } };

/**
 * Batch requests answered at once, per caller, per owner and on the instance. Each looks up to 1,000 objects in the
 * bucket, 8 at a time: 40 batches of 1,000 at once made another owner's manifest read 100 times slower for 70 s
 * (found in review). git-lfs sends one batch at a time per transfer, so 2 per caller slows no ordinary client.
 */
export const DEFAULT_LFS_BATCH_BOUNDS: FetchBounds = Object.freeze({ perCaller: 2, perOwner: 4, total: 8, waitMs: 30_000 });
const LFS_BATCHES: SlotKind = { what: 'LFS batch requests', codes: { owner: 'owner_batches_limit', instance: 'batches_busy' } };

/** The media type of LFS API requests and answers. */
export const LFS_MEDIA_TYPE = 'application/vnd.git-lfs+json';
const DEFAULT_MAX_OBJECT_BYTES = 5 * 1024 ** 3;
const MAX_JSON_BYTES = 1024 * 1024;

interface RepoParams {
  owner: string;
  repo: string;
}
interface ObjectParams extends RepoParams {
  oid: string;
}

/** The body of `POST …/info/lfs/verify`. */
export const VerifyRequest = Type.Object({ oid: Type.String({ maxLength: 200 }), size: Type.Integer({ minimum: 0 }) });

/**
 * Registers the LFS routes in their own encapsulated context (their body parsers stay theirs). Call after
 * `gitAuth`. Scopes: batch download, GET and HEAD need `read`; batch upload, PUT and verify need `write`.
 * An unknown repository is a 404; an unavailable store propagates as `StoreUnavailableError` (503).
 */
export function lfsRoutes(app: FastifyInstance, deps: LfsDependencies): void {
  const maxObjectBytes = deps.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
  const spoolDir = deps.spoolDir ?? tmpdir();
  const downloads = new FetchSlots(deps.downloadBounds ?? DEFAULT_LFS_DOWNLOAD_BOUNDS, undefined, LFS_DOWNLOADS);
  const batches = new FetchSlots(deps.batchBounds ?? DEFAULT_LFS_BATCH_BOUNDS, undefined, LFS_BATCHES);

  const repoOf = async (params: RepoParams): Promise<RepoPath> => {
    const repo = parseUrlRepoPath(params.owner, params.repo);
    if (!(await deps.repos.exists(repo))) throw new RepoNotFoundError(repo.full);
    return repo;
  };
  const objectOf = async (params: ObjectParams): Promise<{ repo: RepoPath; key: string }> => {
    if (!isOid(params.oid)) throw invalidOid(params.oid);
    const repo = await repoOf(params);
    return { repo, key: lfsObjectKey(repo, params.oid) };
  };

  app.register(async (lfs) => {
    lfs.addContentTypeParser(LFS_MEDIA_TYPE, { parseAs: 'string', bodyLimit: MAX_JSON_BYTES }, lfs.getDefaultJsonParser('error', 'error'));

    lfs.post<{ Params: RepoParams; Body: BatchRequest }>(
      '/:owner/:repo/info/lfs/objects/batch',
      { config: { scope: 'read', drains: true }, bodyLimit: MAX_JSON_BYTES, schema: { body: BatchRequest }, attachValidation: true },
      async (request, reply) => {
        validated(request);
        const body = request.body;
        if (body.operation === 'upload') requireScope(request, 'write');
        if (body.hash_algo !== undefined && body.hash_algo !== 'sha256') {
          throw new LfsError(409, 'unsupported_hash_algo', `Only sha256 objects are stored here, not ${body.hash_algo.slice(0, 50)}.`);
        }
        if (body.transfers !== undefined && !body.transfers.includes('basic')) {
          throw new LfsError(422, 'unsupported_transfer', 'Only the "basic" transfer adapter is supported.');
        }
        const repo = await repoOf(request.params);
        // Its lookups stop when its client leaves, and give the turn back.
        const answer = await inTurn(batches, request, reply, repo.owner, (signal) =>
          answerBatch(body, { objects: deps.objects, repo, links: actionLinks(request, repo, deps.publicUrl), maxObjectBytes, signal }),
        );
        // Refused here, before a byte is sent, when the objects to upload cannot fit; each PUT is counted again.
        const uploading = answer.objects.reduce((sum, object) => sum + (object.actions?.upload ? object.size : 0), 0);
        if (uploading > 0) (await deps.quota?.reserve(repo, uploading))?.release();
        return lfsJson(reply).send(answer);
      },
    );

    lfs.post<{ Params: RepoParams; Body: { oid: string; size: number } }>(
      '/:owner/:repo/info/lfs/verify',
      { config: { scope: 'write', drains: true }, bodyLimit: MAX_JSON_BYTES, schema: { body: VerifyRequest }, attachValidation: true },
      async (request, reply) => {
        validated(request);
        const { oid, size } = request.body;
        const { key } = await objectOf({ ...request.params, oid });
        const stored = await deps.objects.head(key);
        if (!stored) throw objectNotFound(oid);
        if (stored.size !== size) throw new LfsError(422, 'size_mismatch', `LFS object ${oid} has ${stored.size} bytes, not ${size}.`);
        return lfsJson(reply).send({ oid, size });
      },
    );

    lfs.get<{ Params: ObjectParams }>('/:owner/:repo/info/lfs/objects/:oid', { config: { scope: 'read', drains: true }, exposeHeadRoute: false }, async (request, reply) => {
      const { key } = await objectOf(request.params);
      const release = await takeTurn(downloads, request, reply, request.params.owner);
      const found = await deps.objects.getStream(key).catch((error: unknown) => {
        release();
        throw error;
      });
      if (!found) {
        release();
        throw objectNotFound(request.params.oid);
      }
      const body = found.body;
      // A client gone mid-download must not leave the store's response open, nor its turn held.
      reply.raw.once('close', () => {
        body.destroy();
        release();
      });
      return objectHeaders(reply, found.size).send(body);
    });

    lfs.head<{ Params: ObjectParams }>('/:owner/:repo/info/lfs/objects/:oid', { config: { scope: 'read', drains: true } }, async (request, reply) => {
      const { key } = await objectOf(request.params);
      const found = await deps.objects.head(key);
      if (!found) throw objectNotFound(request.params.oid);
      return objectHeaders(reply, found.size).send();
    });

    // Uploads in a context of their own with no body parser but a pass-through: whatever the content type,
    // the handler gets the raw stream (a JSON parser would buffer it against the body limit).
    lfs.register(async (uploads) => {
      uploads.removeAllContentTypeParsers();
      uploads.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      uploads.put<{ Params: ObjectParams; Querystring: { size?: string } }>('/:owner/:repo/info/lfs/objects/:oid', { config: { scope: 'write', drains: true } }, async (request, reply) => {
        const { repo, key } = await objectOf(request.params);
        const declared = Number(request.headers['content-length'] ?? 0);
        if (declared > maxObjectBytes) throw tooLarge(maxObjectBytes);
        const size = request.query.size;
        if (size !== undefined && !/^\d{1,16}$/.test(size)) throw new LfsError(422, 'invalid_request', 'The size parameter must be a whole number of bytes.');
        const body = request.body instanceof Readable ? request.body : Readable.from([]);
        const quota = deps.quota;
        // Refused before a byte is read when the announced length cannot fit (an object stored already adds nothing).
        if (quota && declared > 0 && !(await deps.objects.head(key))) (await quota.reserve(repo, declared)).release();
        // Refused at once when what it announces would not fit now; counted as its bytes arrive (receiveObject's meter).
        // The caller's share (one person's across their projects), the repository's owner's without a principal.
        const sharer = callerOf(request, repo.owner);
        deps.spool.refuseUnfit(sharer, declared);
        const spool = deps.spool.open(sharer);
        try {
          await receiveObject(deps.objects, {
            repo,
            oid: request.params.oid,
            body,
            maxBytes: maxObjectBytes,
            spoolDir,
            spool,
            ...(size === undefined ? {} : { expectedSize: Number(size) }),
            ...(quota ? { admit: (bytes: number) => quota.reserve(repo, bytes) } : {}),
          });
        } finally {
          spool.release();
        }
        return reply.code(200).send();
      });
    });
  });
}

function validated(request: FastifyRequest): void {
  // LFS clients treat 422 as "your request is invalid" (git-lfs docs/api/batch.md); Fastify's default is 400.
  const error = request.validationError;
  if (error) throw new LfsError(422, 'invalid_request', `The request body is invalid: ${error.message}`);
}

function lfsJson(reply: FastifyReply): FastifyReply {
  return reply.code(200).type(LFS_MEDIA_TYPE);
}

function objectHeaders(reply: FastifyReply, size: number): FastifyReply {
  return reply.type('application/octet-stream').header('content-length', String(size)).header('cache-control', 'private, max-age=0');
}
