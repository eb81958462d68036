// Full-history import into a pristine repository, from an allow-listed repository of the same bucket
// (`api.import_sources`; no URLs: the service never fetches from other hosts).
//
// `POST /import/resolve` pins the source: its branches and tags now, hashed (import-snapshot.ts).
// `POST /import {operation_key, snapshot}` checks the source still has exactly those refs (409 `snapshot_stale`
// otherwise), copies every object reachable from them (copy-objects.ts) and creates every ref in the pristine
// target as one `ref_update` entry (publishWrite: all refs or none), then writes the receipt (import-receipt.ts).
// A request on a target that is no longer pristine replays (200) when the receipt has the same key and
// snapshot hash, or when there is no receipt yet and the target's refs are the snapshot's (a crash after the
// publish); anything else is 409 `not_pristine`. `GET /import/receipt?operation_key=[&request_hash=]`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { principalOf, requireReach } from '../../auth/index.ts';
import { PublicError } from '../../../src/errors.ts';
import { copyObjects } from '../../../src/git/write/copy-objects.ts';
import { parseRepoPath, parseUrlRepoPath, zeroOid, type RepoHead } from '../../../src/repo-store/index.ts';
import type { RepoApiDependencies } from '../dependencies.ts';
import type { RepoParams } from '../repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from '../schemas.ts';
import { ImportReceipts, type ImportReceipt } from './import-receipt.ts';
import { checkSnapshot, importedRefs, ImportSnapshot, snapshotOf, SnapshotStaleError } from './import-snapshot.ts';
import { allowedSource, NotPristineError, ObjectFormatMismatchError, OPERATION_KEY } from './operation.ts';
import { publishWrite } from './publish-write.ts';

const NAME = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._-]+$' });
// A snapshot of 10 000 refs is about 1 MiB of JSON.
const BODY_LIMIT = 4 << 20;
const MAX_IMPORT_PACK_BYTES = 1024 ** 3;
const SOURCES_KEY = 'api.import_sources';

export const ResolveRequest = Type.Object(
  { source: Type.Object({ owner: NAME, repo: NAME }, { additionalProperties: false, description: 'A repository of this bucket listed in `api.import_sources`.' }) },
  { additionalProperties: false },
);
type ResolveRequest = Static<typeof ResolveRequest>;

export const ImportRequest = Type.Object({ operation_key: OPERATION_KEY, snapshot: ImportSnapshot }, { additionalProperties: false });
type ImportRequest = Static<typeof ImportRequest>;

export const ImportReceiptSchema = Type.Object({
  operation_key: Type.String(),
  request_hash: Type.String({ description: "The snapshot's `snapshot_hash`." }),
  snapshot: ImportSnapshot,
  seq: Type.Integer({ description: 'The log entry that published the refs.' }),
  imported_at: Type.String({ description: 'When the receipt was written (ISO 8601).' }),
});
export const ImportResult = Type.Object({ ...ImportReceiptSchema.properties, replayed: Type.Boolean({ description: 'true: an earlier request with the same key did this (200).' }) });
type ImportResult = Static<typeof ImportResult>;

const ReceiptQuery = Type.Object({ operation_key: OPERATION_KEY, request_hash: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })) }, { additionalProperties: false });
type ReceiptQuery = Static<typeof ReceiptQuery>;

/** 404: no committed import of this key (and hash) in the repository. */
class ReceiptNotFoundError extends PublicError {
  override readonly name = 'ReceiptNotFoundError';
  readonly code = 'receipt_not_found';
  constructor(repo: string) {
    super(404, `${repo} has no committed import with this operation key.`);
  }
}

/** Thrown inside the build when the target has refs by then. */
class TargetNotPristine extends Error {
  override readonly name = 'TargetNotPristine';
}

export function importWriteRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema, 422: ErrorBodySchema };
  scope.post('/import/resolve', {
    config: { scope: 'write' },
    schema: { summary: 'Pin a full-history import source', params: RepoParamsSchema, body: ResolveRequest, response: { 200: ImportSnapshot, ...errors } },
    handler: async (request) => {
      const source = importSource(request, (request.body as ResolveRequest).source, deps);
      const { head } = await deps.cache.sync(source, { fresh: true });
      return snapshotOf(source, head);
    },
  });
  scope.post('/import', {
    config: { scope: 'write' },
    bodyLimit: BODY_LIMIT,
    schema: {
      summary: 'Import pinned complete history into a pristine repository',
      params: RepoParamsSchema,
      body: ImportRequest,
      response: { 200: ImportResult, 201: ImportResult, ...errors },
    },
    handler: async (request, reply) => {
      const result = await importSnapshot(deps, request, request.body as ImportRequest);
      return reply.code(result.replayed ? 200 : 201).send(result);
    },
  });
  scope.get('/import/receipt', {
    config: { scope: 'write' },
    schema: { summary: 'Read a committed import receipt', params: RepoParamsSchema, querystring: ReceiptQuery, response: { 200: ImportReceiptSchema, ...errors } },
    handler: async (request, reply) => {
      const query = request.query as ReceiptQuery;
      const target = targetOf(request);
      const { head } = await deps.cache.sync(target);
      const receipt = await receiptsOf(deps).read(target, head.repoId);
      if (!receipt || receipt.operation_key !== query.operation_key || (query.request_hash !== undefined && query.request_hash !== receipt.request_hash)) {
        throw new ReceiptNotFoundError(target);
      }
      return reply.send(receipt);
    },
  });
}

/**
 * An allow-listed source the caller's token also reaches: an import copies the source's whole history into a
 * repository the caller can read, so it must not be a way to read a repository the token does not reach.
 */
function importSource(request: FastifyRequest, source: { owner: string; repo: string }, deps: RepoApiDependencies): string {
  const path = allowedSource(source, deps.importSources, SOURCES_KEY);
  requireReach(request, parseRepoPath(path));
  return path;
}

function targetOf(request: FastifyRequest): string {
  const { owner, repo } = request.params as RepoParams;
  return parseUrlRepoPath(owner, repo).full;
}

function receiptsOf(deps: RepoApiDependencies): ImportReceipts {
  if (!deps.objects) throw new Error('the JSON API was built without the object store (imports need it)');
  return new ImportReceipts(deps.objects);
}

async function importSnapshot(deps: RepoApiDependencies, request: FastifyRequest, body: ImportRequest): Promise<ImportResult> {
  const { snapshot } = body;
  checkSnapshot(snapshot);
  const source = importSource(request, snapshot.source, deps);
  const target = targetOf(request);
  const receipts = receiptsOf(deps);

  const synced = await deps.cache.sync(target, { fresh: true });
  if (synced.head.refs.size > 0) return replay(deps, receipts, target, synced.head, body);
  if (snapshot.object_format !== synced.head.objectFormat) throw new ObjectFormatMismatchError(snapshot.object_format, synced.head.objectFormat);

  const releaseSource = deps.cache.hold(source);
  try {
    const from = await deps.cache.sync(source, { fresh: true });
    if (snapshotOf(source, from.head).snapshot_hash !== snapshot.snapshot_hash) throw new SnapshotStaleError(source);
    const refs = Object.entries(snapshot.refs);
    const result = await publishWrite(deps, {
      repo: target,
      principal: principalOf(request).name,
      requestId: request.id,
      build: async ({ env, head }) => {
        if (head.refs.size > 0) throw new TargetNotPristine();
        await copyObjects({ sourceDir: from.dir, env, tips: [...new Set(refs.map(([, oid]) => oid))], maxBytes: MAX_IMPORT_PACK_BYTES });
        return refs.map(([ref, oid]) => ({ ref, old: zeroOid(head.objectFormat), new: oid }));
      },
    }).catch((error: unknown) => {
      if (error instanceof TargetNotPristine) return undefined;
      throw error;
    });
    if (result?.outcome === 'published') {
      const receipt = { operation_key: body.operation_key, request_hash: snapshot.snapshot_hash, snapshot, seq: result.seq, imported_at: new Date().toISOString() };
      return answer(await receipts.write(target, result.head.repoId, receipt), body, target);
    }
  } finally {
    releaseSource();
  }
  return replay(deps, receipts, target, (await deps.cache.sync(target, { fresh: true })).head, body);
}

/** A target with refs: the earlier import's answer when it was this request, else 409. */
async function replay(deps: RepoApiDependencies, receipts: ImportReceipts, target: string, head: RepoHead, body: ImportRequest): Promise<ImportResult> {
  const receipt = await receipts.read(target, head.repoId);
  if (receipt) return answer(receipt, body, target, true);
  // No receipt: the import published and its writer stopped before the receipt, or the refs are someone else's.
  const refs = importedRefs(head.refs);
  const wanted = Object.entries(body.snapshot.refs);
  if (head.refs.size !== refs.size || refs.size !== wanted.length || wanted.some(([name, oid]) => refs.get(name) !== oid)) throw new NotPristineError(target);
  const page = await deps.repos.listLog(target, head.logStart, { limit: 1000 });
  const [firstRef, firstOid] = wanted[0] ?? [];
  const seq = page.entries.find((e) => e.refUpdates.some((u) => u.ref === firstRef && u.new === firstOid))?.seq ?? head.seq;
  const recovered = { operation_key: body.operation_key, request_hash: body.snapshot.snapshot_hash, snapshot: body.snapshot, seq, imported_at: new Date().toISOString() };
  return answer(await receipts.write(target, head.repoId, recovered), body, target, true);
}

/** The receipt as the answer to `body`: this request's (201, or 200 replayed), or someone else's (409). */
function answer(receipt: ImportReceipt, body: ImportRequest, target: string, replayed = false): ImportResult {
  if (receipt.operation_key !== body.operation_key || receipt.request_hash !== body.snapshot.snapshot_hash) throw new NotPristineError(target);
  return { ...receipt, replayed };
}
