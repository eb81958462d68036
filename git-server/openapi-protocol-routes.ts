// What the document says of the routes that declare no response schema to Fastify: git smart HTTP, Git LFS,
// creating and deleting repositories, the probes and metrics. Their bodies are streams, pkt-lines or LFS JSON that
// Fastify neither validates nor serializes, so their description lives here, merged in by `describe` (openapi.ts)
// and never compiled into a validator or serializer: declaring it changes no answer. Each status below is one the
// route's code answers (read the route before adding one); e2e/git-openapi-conformance.test.ts checks what real
// git, git-lfs and HTTP clients meet against the served document.
import { Type, type TSchema } from 'typebox';
import { ErrorBodySchema } from './repo-api/schemas.ts';
import { BatchRequest, MAX_BATCH_OBJECTS } from './lfs/batch.ts';
import { VerifyRequest } from './lfs/lfs-routes.ts';

/** The JSON error body of cw-git with a description of the cases a status covers. */
export const errorAnswer = (description: string, headers?: Record<string, TSchema>) => ({
  description,
  content: { 'application/json': { schema: ErrorBodySchema } },
  ...(headers ? { headers } : {}),
});

export const RETRY_AFTER = { 'retry-after': Type.String({ description: 'Seconds to wait before retrying.' }) };
const binary = (description: string, ...types: string[]) => ({ description, content: Object.fromEntries(types.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])) });
const json = (description: string, schema: TSchema, type = 'application/json') => ({ description, content: { [type]: { schema } } });
const empty = (description: string) => ({ description, type: 'null' });

const GIT_PROTOCOL = Type.Object({
  'git-protocol': Type.Optional(Type.String({ description: '`version=2` for git protocol v2 (git sends it by default since 2.26); absent: v0.' })),
});
const DRAINING = 'or the instance is draining (`draining`, `Retry-After: 15`)';
const STORE = 'The object store cannot be reached (`store_unavailable`, `Retry-After`)';
const QUOTA = "its storage quota, packs and LFS objects together, or its owner's (`storage_quota_exceeded`, `quota.repository_max_size`, `quota.owner_max_size`)";
const REPO_NOT_FOUND = errorAnswer('The repository does not exist (`repository_not_found`).');
const BAD_REPO_NAME = errorAnswer('The path names no repository (`invalid_repository_name`: 1-100 of `A-Z a-z 0-9 . _ -` per segment).');
const REPO_REACH = 'The token lacks the scope (`forbidden`), or reaches only other repositories (`forbidden`).';

const LFS = 'application/vnd.git-lfs+json';
const LfsObject = Type.Object({ oid: Type.String(), size: Type.Integer({ minimum: 0 }) });
const LfsAction = Type.Object({
  href: Type.String({ description: 'The URL to call: this service, under the repository.' }),
  header: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Headers to send with it: the caller’s own `Authorization`.' })),
  expires_in: Type.Integer({ minimum: 0, description: 'Seconds the action stays usable (at most an hour, less when the token expires sooner).' }),
});
const BatchResponse = Type.Object({
  transfer: Type.Literal('basic'),
  hash_algo: Type.Literal('sha256'),
  objects: Type.Array(
    Type.Object({
      oid: Type.String(),
      size: Type.Integer({ minimum: 0 }),
      authenticated: Type.Optional(Type.Boolean()),
      actions: Type.Optional(Type.Object({ download: Type.Optional(LfsAction), upload: Type.Optional(LfsAction), verify: Type.Optional(LfsAction) })),
      error: Type.Optional(
        Type.Object(
          { code: Type.Integer(), message: Type.String() },
          { description: 'Why this object has no actions: 404 a download of an object not stored; 422 an oid that is not SHA-256 hex, a size over the limit or unlike the stored one.' },
        ),
      ),
    }),
    { maxItems: MAX_BATCH_OBJECTS },
  ),
});
const LfsObjectParams = Type.Object({ oid: Type.String({ maxLength: 200, description: 'The object’s SHA-256, 64 lowercase hex digits (anything else: 422 `invalid_oid`).' }) });
const LFS_BODY_ERRORS = {
  400: errorAnswer('The path names no repository (`invalid_repository_name`), or the body is not JSON (`invalid_request`).'),
  413: errorAnswer('The body is over 1 MiB (`too_large`).'),
  415: errorAnswer('The body is neither `application/vnd.git-lfs+json` nor `application/json` (`unsupported_media_type`).'),
};

const RepositorySummary = Type.Object({
  full_name: Type.String({ description: '`owner/repo`' }),
  default_branch: Type.String(),
  object_format: Type.Union([Type.Literal('sha1'), Type.Literal('sha256')]),
  seq: Type.String({ pattern: '^[0-9]+$', description: 'The repository’s log position (a decimal string).' }),
  pristine: Type.Boolean({ description: 'No write yet (seq 0): a clone is an empty repository.' }),
  created_at: Type.String({ description: 'RFC 3339.' }),
});

/** Marks an operation whose body may be left out (@fastify/swagger writes every body as required). */
export const OPTIONAL_BODY = 'x-optional-body';

/** A route's description: what a Fastify schema would say (`body`, `querystring`, `headers`, `params`, `response`), never given to Fastify. */
export interface RouteDescription {
  readonly summary: string;
  readonly description?: string;
  readonly querystring?: TSchema;
  readonly headers?: TSchema;
  readonly params?: TSchema;
  readonly body?: unknown;
  readonly response: Readonly<Record<string, unknown>>;
  readonly [OPTIONAL_BODY]?: true;
}

/** By `METHOD /openapi/path`. */
export const PROTOCOL_ROUTES: Readonly<Record<string, RouteDescription>> = {
  'GET /healthz': {
    summary: 'Liveness: 200 while the process lives; never touches storage',
    response: { 200: json('The process lives.', Type.Object({ status: Type.Literal('ok') })) },
  },
  'GET /readyz': {
    summary: 'Readiness: 200, or 503 with Retry-After while draining; never touches storage',
    response: {
      200: json('Serving.', Type.Object({ status: Type.Literal('ready') })),
      503: errorAnswer('The instance is draining after SIGTERM (`draining`, `Retry-After: 15`): the load balancer should stop sending here.', RETRY_AFTER),
    },
  },
  'GET /metrics': {
    summary: 'Prometheus metrics',
    response: {
      200: { description: 'The Prometheus text exposition format 0.0.4.', content: { 'text/plain': { schema: { type: 'string' } } } },
      403: errorAnswer('The token lacks the `read` scope, or reaches only some repositories (`forbidden`): metrics are about every repository.'),
    },
  },
  'PUT /{owner}/{repo}': {
    summary: 'Create a repository',
    description: 'The body is optional (no body, or `null`: HEAD is `main`). With the operator, answers once the `Repository` resource is ready.',
    [OPTIONAL_BODY]: true,
    response: {
      201: json('Created, pristine (seq 0, no refs).', Type.Object({ repository: RepositorySummary })),
      400: errorAnswer('A body its schema refuses or a branch name git would refuse (`invalid_request`), or a path that names no repository (`invalid_repository_name`).'),
      403: errorAnswer(REPO_REACH),
      409: errorAnswer(
        'The name is taken (`repository_exists`), a deletion of it is still sweeping (`repository_being_deleted`, `Retry-After`), or, without Kubernetes, its owner has `quota.owner_max_repositories` repositories (`repository_limit_reached`).',
        RETRY_AFTER,
      ),
      413: errorAnswer('The body is over 64 KiB (`too_large`).'),
      415: errorAnswer('A body that is not JSON (`unsupported_media_type`).'),
      503: errorAnswer(`${STORE}, the Kubernetes API cannot be reached, or the \`Repository\` was not ready in time and was withdrawn (\`unavailable\`, \`Retry-After\`); retry.`, RETRY_AFTER),
    },
  },
  'DELETE /{owner}/{repo}': {
    summary: 'Delete a repository',
    description: 'Answers once the repository and all its bucket data (packs, log, LFS objects) are gone.',
    response: {
      204: empty('Deleted.'),
      400: BAD_REPO_NAME,
      403: errorAnswer(REPO_REACH),
      404: REPO_NOT_FOUND,
      503: errorAnswer(`${STORE}, the Kubernetes API cannot be reached, or the deletion did not finish in time and goes on in the background (\`unavailable\`, \`Retry-After\`).`, RETRY_AFTER),
    },
  },
  'GET /{owner}/{repo}/info/refs': {
    summary: 'Git smart HTTP: ref advertisement (`?service=git-upload-pack|git-receive-pack`), protocol v0 and v2',
    querystring: Type.Object({
      service: Type.Optional(
        Type.Union([Type.Literal('git-upload-pack'), Type.Literal('git-receive-pack')], {
          description: 'The service to advertise; `git-receive-pack` needs the `write` scope. Absent (the dumb protocol) or another value: 403 `smart_http_required`.',
        }),
      ),
    }),
    headers: GIT_PROTOCOL,
    response: {
      200: binary('The pkt-line advertisement of the service asked for.', 'application/x-git-upload-pack-advertisement', 'application/x-git-receive-pack-advertisement'),
      400: BAD_REPO_NAME,
      403: errorAnswer(`${REPO_REACH} Without \`service\`, or with another value: \`smart_http_required\` (only the smart protocol is served).`),
      404: REPO_NOT_FOUND,
      503: errorAnswer(`${STORE}, ${DRAINING}.`, RETRY_AFTER),
    },
  },
  'POST /{owner}/{repo}/git-upload-pack': {
    summary: 'Git smart HTTP: clone and fetch',
    description:
      'git’s own upload-pack (protocol v0 and v2). The body may be gzip (`Content-Encoding: gzip`), up to 64 MiB decompressed. The answer streams: a request that turns out malformed (or too large) once it started ends the connection without the rest.',
    headers: GIT_PROTOCOL,
    body: { content: { 'application/x-git-upload-pack-request': { schema: { type: 'string', format: 'binary' } } } },
    response: {
      200: binary('The pkt-line answer: refs (v2 `ls-refs`), or the pack with progress on side-band.', 'application/x-git-upload-pack-result'),
      400: BAD_REPO_NAME,
      403: errorAnswer(REPO_REACH),
      404: REPO_NOT_FOUND,
      415: errorAnswer('The body is not `application/x-git-upload-pack-request` (`unsupported_media_type`), refused before it is read.'),
      429: errorAnswer(
        'The caller, or the repository’s owner, has its share of fetches running (`server.max_fetches_per_caller`, `_per_owner`) and this one waited `server.fetch_wait` for its turn (`owner_fetches_limit`).',
        RETRY_AFTER,
      ),
      503: errorAnswer(`${STORE}; the instance runs as many fetches as it may and this one waited its turn (\`fetches_busy\`); ${DRAINING}.`, RETRY_AFTER),
    },
  },
  'POST /{owner}/{repo}/git-receive-pack': {
    summary: 'Git smart HTTP: push',
    description:
      'Published to the bucket before it is acknowledged. Refused refs (stale, missing objects, a pack over the limit, new refs past `quota.repository_max_refs`) are reported per ref in the 200 report (`ng`), as git’s own receive-pack does. A push silent for a while starts its 200 answer early with side-band keepalives; an error after that goes to git on the error band.',
    body: { content: { 'application/x-git-receive-pack-request': { schema: { type: 'string', format: 'binary' } } } },
    response: {
      200: binary('The report-status (on side-band when negotiated); empty for git’s lone-flush probe.', 'application/x-git-receive-pack-result'),
      400: errorAnswer('The path names no repository (`invalid_repository_name`), or the commands are not valid pkt-lines (`invalid_git_request`).'),
      403: errorAnswer(REPO_REACH),
      404: REPO_NOT_FOUND,
      415: errorAnswer('The body is not `application/x-git-receive-pack-request` (`unsupported_media_type`), refused before it is read.'),
      503: errorAnswer(`${STORE}; too many concurrent writes (\`contention\`); the push is recorded but not yet visible, push again (\`publish_incomplete\`); ${DRAINING}.`, RETRY_AFTER),
    },
  },
  'POST /{owner}/{repo}/info/lfs/objects/batch': {
    summary: 'Git LFS batch API',
    description: 'Downloads need `read`, uploads `write`. Per object: the actions to take next, or an error.',
    body: { content: { [LFS]: { schema: BatchRequest }, 'application/json': { schema: BatchRequest } } },
    response: {
      200: json('The actions per object (`basic` transfer, sha256).', BatchResponse, LFS),
      ...LFS_BODY_ERRORS,
      403: errorAnswer(`${REPO_REACH} An upload needs \`write\`.`),
      404: REPO_NOT_FOUND,
      409: errorAnswer('A `hash_algo` other than `sha256` (`unsupported_hash_algo`).'),
      422: errorAnswer('A body its schema refuses (`invalid_request`), or `transfers` without `basic` (`unsupported_transfer`).'),
      429: errorAnswer('The caller has 2 batch requests being answered, or the repository’s owner 4, and this one waited 30 s for its turn (`owner_batches_limit`).', RETRY_AFTER),
      503: errorAnswer(`${STORE}, ${DRAINING}; or 8 batch requests are being answered on the instance and this one waited 30 s for its turn (\`batches_busy\`).`, RETRY_AFTER),
      507: errorAnswer(`The objects to upload would take the repository past ${QUOTA}.`),
    },
  },
  'POST /{owner}/{repo}/info/lfs/verify': {
    summary: 'Git LFS: verify an uploaded object',
    body: { content: { [LFS]: { schema: VerifyRequest }, 'application/json': { schema: VerifyRequest } } },
    response: {
      200: json('The object is stored with this size.', LfsObject, LFS),
      ...LFS_BODY_ERRORS,
      403: errorAnswer(REPO_REACH),
      404: errorAnswer('The repository (`repository_not_found`) or the object (`object_not_found`) does not exist.'),
      422: errorAnswer('A body its schema refuses (`invalid_request`), an oid that is not SHA-256 hex (`invalid_oid`), or a stored size unlike `size` (`size_mismatch`).'),
      503: errorAnswer(`${STORE}, ${DRAINING}.`, RETRY_AFTER),
    },
  },
  'GET /{owner}/{repo}/info/lfs/objects/{oid}': {
    summary: 'Git LFS basic transfer: download an object',
    params: LfsObjectParams,
    response: {
      200: binary('The object’s bytes (`Content-Length`).', 'application/octet-stream'),
      400: BAD_REPO_NAME,
      403: errorAnswer(REPO_REACH),
      404: errorAnswer('The repository (`repository_not_found`) or the object (`object_not_found`) does not exist.'),
      422: errorAnswer('`oid` is not 64 lowercase hex digits (`invalid_oid`).'),
      503: errorAnswer(`${STORE}, ${DRAINING}.`, RETRY_AFTER),
    },
  },
  'HEAD /{owner}/{repo}/info/lfs/objects/{oid}': {
    summary: 'Git LFS basic transfer: an object’s size',
    params: LfsObjectParams,
    response: {
      200: binary('No body; `Content-Length` is the object’s size.', 'application/octet-stream'),
      400: BAD_REPO_NAME,
      403: errorAnswer(REPO_REACH),
      404: errorAnswer('The repository (`repository_not_found`) or the object (`object_not_found`) does not exist.'),
      422: errorAnswer('`oid` is not 64 lowercase hex digits (`invalid_oid`).'),
      503: errorAnswer(`${STORE}, ${DRAINING}.`, RETRY_AFTER),
    },
  },
  'PUT /{owner}/{repo}/info/lfs/objects/{oid}': {
    summary: 'Git LFS basic transfer: upload an object',
    description:
      'The body is the object’s bytes, whatever its content type. Spooled while its SHA-256 and size are checked; nothing unverified reaches the bucket. An object already stored is left as it is.',
    params: LfsObjectParams,
    querystring: Type.Object({
      size: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$', description: 'The size the batch announced (its upload link carries it): a body of another size is refused.' })),
    }),
    body: { content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
    response: {
      200: empty('Stored (or already there).'),
      400: BAD_REPO_NAME,
      403: errorAnswer(REPO_REACH),
      404: REPO_NOT_FOUND,
      413: errorAnswer('The object is over the limit (`too_large`; 5 GiB unless configured).'),
      422: errorAnswer(
        '`oid` is not SHA-256 hex (`invalid_oid`), `size` is not a whole number (`invalid_request`), or the body’s size (`size_mismatch`) or SHA-256 (`checksum_mismatch`) is not the announced one.',
      ),
      503: errorAnswer(`${STORE}, ${DRAINING}.`, RETRY_AFTER),
      507: errorAnswer(`The object would take the repository past ${QUOTA}; nothing was stored.`),
    },
  },
};
