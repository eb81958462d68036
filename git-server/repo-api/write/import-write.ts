// Full-history import into a pristine repository, from an allow-listed repository of the same bucket (the fast
// path: objects copied from its cached copy) or from an allow-listed `https://` git URL (`api.import_sources`
// patterns), fetched by git within the import's bounds (git-server/import/: time, size, the target policy).
// Imports run in the request, as every write of this API does: there is no controller, and nothing of a request
// outlives it, so the credentials a URL import is given live in its memory (and git's environment) only.
//
// `POST /import/resolve` pins the source: its branches and tags now, hashed (import-snapshot.ts).
// `POST /import {operation_key, snapshot}` checks the source still has exactly those refs (409 `snapshot_stale`
// otherwise), copies every object reachable from them (copy-objects.ts) and creates every ref in the pristine
// target as one `ref_update` entry (publishWrite: all refs or none), then writes the receipt (import-receipt.ts).
// A request on a target that is no longer pristine replays (200) when the receipt has the same key and
// snapshot hash, or when there is no receipt yet and the target's refs are the snapshot's (a crash after the
// publish); anything else is 409 `not_pristine`. `GET /import/receipt?operation_key=[&request_hash=]`.
import { runsPer } from '../../owner-runs.ts';
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { requireReach } from '../../auth/index.ts';
import { PublicError } from '../../../src/errors.ts';
import { copyObjects } from '../../plumbing/write/copy-objects.ts';
import { parseRepoPath, parseUrlRepoPath, zeroOid, type RepoHead } from '../../../src/repo-store/index.ts';
import { fetchRemote, listRemote, type SourceCredentials } from '../../import/remote-source.ts';
import { parseSourceUrl } from '../../import/source-url.ts';
import type { RepoApiDependencies, UrlImports } from '../dependencies.ts';
import type { RepoParams } from '../repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema, STORAGE_QUOTA_ERROR } from '../schemas.ts';
import { ImportReceipts, type ImportReceipt } from './import-receipt.ts';
import { checkSnapshot, importedRefs, InvalidSnapshotError, ImportSnapshot, sameRefs, snapshotOf, SnapshotStaleError } from './import-snapshot.ts';
import { allowedSource, NotPristineError, ObjectFormatMismatchError, OPERATION_KEY, SourceNotAllowedError } from './operation.ts';
import { publishIntoPristine } from './pristine-publish.ts';
import { RefLimitError } from './write-errors.ts';

const NAME = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._-]+$' });
// A snapshot of 10 000 refs is about 1 MiB of JSON.
const BODY_LIMIT = 4 << 20;
const MAX_IMPORT_PACK_BYTES = 1024 ** 3;
const SOURCES_KEY = 'api.import_sources';

// Visible ASCII or any printable text: never a line break, which would end git's header and start another.
const HEADER_SAFE = '^[^\\x00-\\x1f\\x7f]+$';
export const Credentials = Type.Union(
  [
    Type.Object({ token: Type.String({ minLength: 1, maxLength: 4096, pattern: '^[\\x21-\\x7e]+$', description: 'Sent as `Authorization: Bearer <token>`.' }) }, { additionalProperties: false }),
    Type.Object(
      {
        username: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: '^[^:\\x00-\\x1f\\x7f]+$', description: 'Default `git`.' })),
        password: Type.String({ minLength: 1, maxLength: 4096, pattern: HEADER_SAFE, description: 'A password or a personal access token (GitHub, GitLab, Gitea take one here).' }),
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'For a URL source only: sent to the source’s host only (HTTP Basic, or Bearer for a token), and kept nowhere: not in the snapshot, the receipt, a log or an error.' },
);

const BucketSource = Type.Object({ owner: NAME, repo: NAME }, { additionalProperties: false, description: 'A repository of this bucket listed in `api.import_sources`.' });
const UrlSource = Type.Object(
  { url: Type.String({ minLength: 1, maxLength: 2048, description: 'An `https://` git URL matching a pattern of `api.import_sources`, without credentials.' }) },
  { additionalProperties: false },
);

export const ResolveRequest = Type.Object({ source: Type.Union([BucketSource, UrlSource]), credentials: Type.Optional(Credentials) }, { additionalProperties: false });
type ResolveRequest = Static<typeof ResolveRequest>;

export const ImportRequest = Type.Object({ operation_key: OPERATION_KEY, snapshot: ImportSnapshot, credentials: Type.Optional(Credentials) }, { additionalProperties: false });
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

export function importWriteRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  const error = (description: string) => ({ description, content: { 'application/json': { schema: ErrorBodySchema } } });
  const errors = {
    400: error('Malformed input (`invalid_request`), an edited snapshot (`invalid_snapshot`), a URL that is not https or holds credentials (`invalid_source_url`).'),
    403: error('No `write` scope or no reach (`forbidden`), a source outside `api.import_sources` (`source_not_allowed`), a URL resolving to an internal address (`source_refused`).'),
    404: ErrorBodySchema,
    409: error(
      'The target is not pristine (`not_pristine`), the source moved since the snapshot (`snapshot_stale`), or it has more refs than a repository may hold (`ref_limit_reached`, `quota.repository_max_refs`).',
    ),
    429: error(
      'The caller, or the repository’s owner, has two imports from a URL running (`owner_imports_limit`; 503 `imports_busy` past the instance’s eight), or its share of the spool is taken (`owner_uploads_limit`), or (the import’s copy and publish) the caller has 2 writes running or the owner 4 and this one waited 30 s for its turn (`owner_writes_limit`; 503 `writes_busy` past the instance’s 8); `Retry-After`.',
    ),
    422: error(
      'Object formats differ (`object_format_mismatch`); a URL source that needs or refused the credentials (`source_authentication_failed`), has no repository there (`source_not_found`), or sent more than `api.import_max_size` (`source_too_large`).',
    ),
    502: error('A URL source could not be reached or its certificate verified (`source_unreachable`), or git failed against it (`source_failed`).'),
    504: error('A URL source did not finish within `api.import_timeout` (`source_timeout`).'),
  };
  scope.post('/import/resolve', {
    config: { scope: 'write' },
    schema: { summary: 'Pin a full-history import source', params: RepoParamsSchema, body: ResolveRequest, response: { 200: ImportSnapshot, ...errors } },
    handler: async (request) => {
      const body = request.body as ResolveRequest;
      if ('url' in body.source) {
        const url = urlSource(body.source.url, deps);
        const remote = await remoteRuns(deps).run(callerOf(request), () => listRemote(url, remoteOptions(deps, body.credentials)), ownerOf(request));
        const headRef = remote.head ?? [...remote.refs.keys()].find((name) => name.startsWith('refs/heads/')) ?? 'refs/heads/main';
        return snapshotOf(url, { refs: remote.refs, objectFormat: remote.objectFormat, headRef });
      }
      noCredentials(body.credentials);
      const source = importSource(request, body.source, deps);
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
      response: { 200: ImportResult, 201: ImportResult, ...errors, ...STORAGE_QUOTA_ERROR },
    },
    handler: async (request, reply) => {
      const result = await importSnapshot(deps, request, reply, request.body as ImportRequest);
      return reply.code(result.replayed ? 200 : 201).send(result);
    },
  });
  scope.get('/import/receipt', {
    config: { scope: 'write' },
    schema: {
      summary: 'Read a committed import receipt',
      params: RepoParamsSchema,
      querystring: ReceiptQuery,
      response: { 200: ImportReceiptSchema, 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema },
    },
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

/** An allow-listed URL source, canonical; 400 when it is no https URL, 403 when no pattern admits it. */
function urlSource(text: string, deps: RepoApiDependencies): URL {
  const url = parseSourceUrl(text);
  if (!deps.urlImports?.patterns.admits(url)) throw new SourceNotAllowedError(url.href, SOURCES_KEY);
  return url;
}

/** git against a remote (`ls-remote`, a fetch): a process and a connection for up to `api.import_timeout`. */
const remoteRuns = runsPer<RepoApiDependencies>('imports', 'imports from a URL running', { perOwner: 2, total: 8, retryAfterSeconds: 10 });

function remoteOptions(deps: RepoApiDependencies, credentials: SourceCredentials | undefined): UrlImports & { credentials?: SourceCredentials } {
  return { ...(deps.urlImports as UrlImports), ...(credentials ? { credentials } : {}) };
}

/** 400: credentials are for URL sources; a repository of this bucket is read with the caller's own token. */
function noCredentials(credentials: unknown): void {
  if (credentials !== undefined)
    throw Object.assign(new PublicError(400, '`credentials` are for a URL source only; a repository of this bucket is read with your own token.'), { code: 'invalid_request' });
}

/** Whose share of the runs against a URL a request spends: the principal's (one person's across their projects). */
function callerOf(request: FastifyRequest): string {
  return request.gitPrincipal?.name ?? ownerOf(request);
}

function ownerOf(request: FastifyRequest): string {
  const { owner, repo } = request.params as RepoParams;
  return parseUrlRepoPath(owner, repo).owner;
}

function targetOf(request: FastifyRequest): string {
  const { owner, repo } = request.params as RepoParams;
  return parseUrlRepoPath(owner, repo).full;
}

function receiptsOf(deps: RepoApiDependencies): ImportReceipts {
  if (!deps.objects) throw new Error('the JSON API was built without the object store (imports need it)');
  return new ImportReceipts(deps.objects);
}

/** A source ready to copy from: a repository directory whose refs are the snapshot's, and how to let it go. */
interface OpenSource {
  readonly dir: string;
  release(): Promise<void>;
}

/** The same-bucket source, synced and held; 409 when its refs moved since the snapshot. */
async function openBucketSource(deps: RepoApiDependencies, source: string, snapshot: ImportSnapshot): Promise<OpenSource> {
  const release = deps.cache.hold(source);
  try {
    const from = await deps.cache.sync(source, { fresh: true });
    if (snapshotOf(source, from.head).snapshot_hash !== snapshot.snapshot_hash) throw new SnapshotStaleError(source);
    return { dir: from.dir, release: async () => release() };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * The URL source, fetched into a directory of the cache's tmp (deleted on release); 409 when its refs moved. What it
 * fetches counts against `caller`'s share of the spool until then, as a push does: one tenant's many imports cannot
 * fill the disk every other tenant's pushes need (429 past its share).
 */
async function openUrlSource(deps: RepoApiDependencies, url: URL, snapshot: ImportSnapshot, credentials: SourceCredentials | undefined, caller: string, owner: string): Promise<OpenSource> {
  const dir = join(deps.cache.tmpDir, 'imports', randomUUID());
  const spool = deps.spool?.open(caller);
  const release = async () => {
    await rm(dir, { recursive: true, force: true });
    spool?.release();
  };
  try {
    await mkdir(join(deps.cache.tmpDir, 'imports'), { recursive: true });
    const refs = await remoteRuns(deps).run(caller, () => fetchRemote(url, dir, snapshot.object_format, { ...remoteOptions(deps, credentials), ...(spool ? { spool } : {}) }), owner);
    if (!sameRefs(snapshot, refs)) throw new SnapshotStaleError(url);
    return { dir, release };
  } catch (error) {
    await release();
    throw error;
  }
}

async function importSnapshot(deps: RepoApiDependencies, request: FastifyRequest, reply: FastifyReply, body: ImportRequest): Promise<ImportResult> {
  const { snapshot } = body;
  checkSnapshot(snapshot);
  let open: () => Promise<OpenSource>;
  if ('url' in snapshot.source) {
    const url = urlSource(snapshot.source.url, deps);
    if (url.href !== snapshot.source.url) throw new InvalidSnapshotError('source.url is not as resolve answered it; send the snapshot as POST /api/import/resolve answered it.');
    open = () => openUrlSource(deps, url, snapshot, body.credentials, callerOf(request), ownerOf(request));
  } else {
    noCredentials(body.credentials);
    const source = importSource(request, snapshot.source, deps);
    open = () => openBucketSource(deps, source, snapshot);
  }
  const target = targetOf(request);
  const receipts = receiptsOf(deps);

  const synced = await deps.cache.sync(target, { fresh: true });
  if (synced.head.refs.size > 0) return replay(deps, receipts, target, synced.head, body);
  if (snapshot.object_format !== synced.head.objectFormat) throw new ObjectFormatMismatchError(snapshot.object_format, synced.head.objectFormat);
  // Before the fetch: the publish would refuse these creates anyway (into a pristine target, every ref is one).
  if (Object.keys(snapshot.refs).length > deps.repos.maxRefs) throw new RefLimitError(target, deps.repos.maxRefs);

  const from = await open();
  try {
    const refs = Object.entries(snapshot.refs);
    // The copy and its publish take a write turn; the fetch before it has the URL imports' own (remoteRuns).
    const result = await publishIntoPristine(deps, request, reply, async ({ env, head, signal }) => {
      await copyObjects({ sourceDir: from.dir, env, tips: [...new Set(refs.map(([, oid]) => oid))], maxBytes: MAX_IMPORT_PACK_BYTES, ...(signal ? { signal } : {}) });
      return refs.map(([ref, oid]) => ({ ref, old: zeroOid(head.objectFormat), new: oid }));
    });
    if (result?.outcome === 'published') {
      const receipt = { operation_key: body.operation_key, request_hash: snapshot.snapshot_hash, snapshot, seq: result.seq, imported_at: new Date().toISOString() };
      return answer(await receipts.write(target, result.head.repoId, receipt), body, target);
    }
  } finally {
    await from.release();
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
