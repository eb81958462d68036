// `POST /commits` (`write` scope): a batch of file changes committed on a branch with no clone. The blobs, trees
// and the commit are built with git's plumbing in a quarantine (git-server/plumbing/write/build-commit.ts) and published with
// the branch's move as one `ref_update` log entry (publishWrite).
//
// Decisions (docs/repository-service.md, "Commits"):
// * A branch that does not exist is created only when asked: `expected_head_oid` of zeros (a root commit, or on
//   `base` when given), `base` alone, or the repository has no branch at all (its first commit, as GitHub's
//   contents API writes the first file of an empty repository). Otherwise 404, so a typo cannot start a parallel
//   history.
// * Without `expected_head_oid` the client asked for no compare-and-swap: the commit is built again on the new
//   head after every lost race, until it lands, a change no longer fits the tree (409 `path_conflict` with the
//   paths), or FORCE_DEADLINE_MS passes (503 `contention`, retryable).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { principalOf } from '../../auth/index.ts';
import { KeyedMutex } from '../../../src/collections/keyed-mutex.ts';
import { PublicError } from '../../../src/errors.ts';
import { checkRevision, RevisionNotFoundError, resolveCommit } from '../../plumbing/read/rev-parse.ts';
import { buildCommit, TreeConflictError } from '../../plumbing/write/build-commit.ts';
import { checkChanges, decodedLength } from '../../plumbing/write/changes.ts';
import { isValidRefName, parseUrlRepoPath, PublishContentionError, zeroOid, type PublishResult, type RepoHead } from '../../../src/repo-store/index.ts';
import type { ErrorDetails } from '../../errors.ts';
import type { RepoApiDependencies } from '../dependencies.ts';
import type { RepoParams } from '../repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema, STORAGE_QUOTA_ERROR, WRITE_TURN_ERROR } from '../schemas.ts';
import { publishWrite, type WriteRequest } from './publish-write.ts';
import { writeInTurn } from './write-turns.ts';
import { PathConflictBody, RefMismatchError, RefNameConflictError } from './write-errors.ts';

/** At most this many changes in one request (413 beyond). */
export const MAX_CHANGES = 1000;
/** At most this many bytes of (decoded) file content in one request (413 beyond). */
export const MAX_CONTENT_BYTES = 16 << 20;
// The JSON around it: 16 MiB in base64 plus up to 1000 long paths.
const BODY_LIMIT = Math.ceil((MAX_CONTENT_BYTES * 4) / 3) + (5 << 20);
// A forced commit (no expected_head_oid) that loses the race to another writer is built again on the new head,
// for this long: a bound on the request's time, not on how busy the branch is (each round is one sync and build).
export const FORCE_DEADLINE_MS = 30_000;
// Forced commits on one branch through one instance take turns: they would only beat each other to the same head
// (one wins a round, the rest build again), so many at once would starve the unlucky ones past the deadline.
// Keyed by the instance's dependencies: both lanes of an instance share them, two instances in a process do not.
const forcedTurns = new WeakMap<RepoApiDependencies, KeyedMutex>();

const OID = Type.String({ pattern: '^(?:[0-9a-f]{40}|[0-9a-f]{64})$', description: 'A full object id (lower-case hex).' });
const PATH = Type.String({ minLength: 1, maxLength: 4096, description: 'A path in the tree, `/`-separated, relative.' });
const PERSON = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256 }),
    email: Type.String({ minLength: 1, maxLength: 256 }),
    when: Type.Optional(Type.String({ maxLength: 64, description: 'RFC 3339 with an explicit offset or `Z`; default now.' })),
  },
  { additionalProperties: false },
);

const CHANGE_KINDS = Type.Union([
  Type.Object(
    {
      op: Type.Literal('upsert'),
      path: PATH,
      content: Type.String({ description: 'The file content, standard base64 (a symbolic link: its target).' }),
      mode: Type.Enum(['100644', '100755', '120000']),
    },
    { additionalProperties: false },
  ),
  Type.Object({ op: Type.Literal('delete'), path: PATH }, { additionalProperties: false }),
  Type.Object({ op: Type.Literal('rename'), from: PATH, to: PATH }, { additionalProperties: false }),
]);

// A discriminated `oneOf` rather than TypeBox's `anyOf`: Ajv then checks a change against the one kind its `op`
// names, so an upsert without `mode` is told just that, not every other kind's requirements as well.
export const CommitChange = Type.Unsafe<Static<typeof CHANGE_KINDS>>({
  type: 'object',
  required: ['op'],
  discriminator: { propertyName: 'op' },
  oneOf: CHANGE_KINDS.anyOf,
});

export const CommitRequest = Type.Object(
  {
    branch: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'The branch short name. It must exist unless the request creates it: `expected_head_oid` of zeros, `base`, or a repository with no branch yet (its first commit).',
    }),
    message: Type.String({ maxLength: 1 << 20, description: 'The commit message.' }),
    expected_head_oid: Type.Optional({
      ...OID,
      description:
        'Where the branch must be now (409 `ref_mismatch` otherwise); the zero oid: the branch must not exist, and is created. Omitted: the commit goes on the latest head, rebuilt after every lost race.',
    }),
    base: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'Create the branch starting at this revision (a branch, tag or commit): the branch must not exist (409 `ref_mismatch` otherwise).',
      }),
    ),
    committer: PERSON,
    author: Type.Optional(PERSON),
    allow_empty: Type.Optional(Type.Boolean({ default: false, description: 'Commit even when the tree does not change.' })),
    changes: Type.Array(CommitChange, { description: `At most ${MAX_CHANGES} changes and ${MAX_CONTENT_BYTES} bytes of content (413 beyond).` }),
  },
  { additionalProperties: false },
);
type CommitRequest = Static<typeof CommitRequest>;

export const CommitResult = Type.Object({
  ref: Type.String({ description: 'The full ref name of the branch.' }),
  oid: Type.String({ description: 'The new commit (the branch now points at it).' }),
  commit_oid: Type.String({ description: 'The new commit (same as `oid`).' }),
  seq: Type.Integer({ description: 'The log entry (write-ahead log sequence number) that published it.' }),
});
type CommitResult = Static<typeof CommitResult>;

/** 404: the branch to commit on does not exist. */
export class BranchNotFoundError extends PublicError {
  override readonly name = 'BranchNotFoundError';
  readonly code = 'revision_not_found';
  constructor(branch: string) {
    super(404, `Branch ${JSON.stringify(branch)} does not exist; to create it, send \`base\` (where it starts) or \`expected_head_oid\` of zeros.`);
  }
}

/** 413: more changes or content than one request may carry. */
export class CommitTooLargeError extends PublicError {
  override readonly name = 'CommitTooLargeError';
  readonly code = 'too_large';
  constructor(detail: string) {
    super(413, detail);
  }
}

/**
 * 409: a forced commit lost a race, and on the branch's new head a change no longer fits (the file to delete or
 * rename is gone, a file now stands where a directory must): another writer changed those paths.
 */
export class PathConflictError extends PublicError implements ErrorDetails {
  override readonly name = 'PathConflictError';
  readonly code = 'path_conflict';
  readonly details: { readonly conflicts: readonly string[]; readonly current_oid: string };
  constructor(ref: string, current: string, cause: TreeConflictError) {
    super(409, `${ref} moved to ${current} while the commit was written, and the changes no longer fit it: ${cause.message}`);
    this.details = { conflicts: [cause.path], current_oid: current };
  }
}

export function commitsWriteRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.post('/commits', {
    config: { scope: 'write' },
    bodyLimit: BODY_LIMIT,
    schema: {
      summary: 'Commit a batch of file changes on a branch',
      params: RepoParamsSchema,
      body: CommitRequest,
      response: {
        201: CommitResult,
        400: ErrorBodySchema,
        403: ErrorBodySchema,
        404: ErrorBodySchema,
        409: PathConflictBody,
        413: ErrorBodySchema,
        503: ErrorBodySchema,
        ...STORAGE_QUOTA_ERROR,
        ...WRITE_TURN_ERROR,
      },
    },
    handler: async (request, reply) => {
      const body = request.body as CommitRequest;
      // What the request alone can be refused for is refused before it waits for a turn.
      checkRequest(body);
      return reply.code(201).send(await writeInTurn(deps, request, reply, (signal) => commit(deps, request, body, signal)));
    },
  });
}

/** The refusals a commit request earns on its own, before anything of the repository is read. */
function checkRequest(body: CommitRequest): void {
  checkBounds(body);
  checkChanges(body.changes);
  if (body.base !== undefined) checkRevision(body.base);
  if (!isValidRefName(`refs/heads/${body.branch}`)) throw new PublicError(400, `${JSON.stringify(body.branch)} is not a valid branch name.`);
  if (body.base !== undefined && body.expected_head_oid !== undefined && !expectsAbsent(body)) {
    throw Object.assign(new PublicError(400, '`base` creates the branch: send it without `expected_head_oid`, or with the zero oid.'), { code: 'invalid_request' });
  }
}

async function commit(deps: RepoApiDependencies, request: FastifyRequest, body: CommitRequest, signal: AbortSignal): Promise<CommitResult> {
  const ref = `refs/heads/${body.branch}`;
  const { owner, repo } = request.params as RepoParams;
  const writer = { repo: parseUrlRepoPath(owner, repo).full, principal: principalOf(request).name, requestId: request.id, signal };
  const forced = body.expected_head_oid === undefined && body.base === undefined;
  if (!forced) return publishCommit(deps, writer, ref, body, 0);
  const deadline = Date.now() + FORCE_DEADLINE_MS;
  let turns = forcedTurns.get(deps);
  if (!turns) forcedTurns.set(deps, (turns = new KeyedMutex()));
  return turns.run(`${writer.repo}\0${ref}`, () => publishCommit(deps, writer, ref, body, deadline));
}

/**
 * Builds and publishes the commit; with a `deadline` (a forced commit) builds it again on the new head after every
 * lost race until then.
 */
async function publishCommit(deps: RepoApiDependencies, writer: Omit<WriteRequest, 'build'>, ref: string, body: CommitRequest, deadline: number): Promise<CommitResult> {
  const forced = deadline > 0;
  for (let attempt = 1; ; attempt++) {
    let built = '';
    let parentSeen: string | undefined;
    let result: PublishResult;
    try {
      result = await publishWrite(deps, {
        ...writer,
        build: async ({ dir, env, head }) => {
          const current = head.refs.get(ref);
          const parent = await parentOf(dir, head, ref, current, body);
          parentSeen = current;
          const { commit } = await buildCommit({
            dir,
            env,
            tmpDir: deps.cache.tmpDir,
            parent,
            changes: body.changes,
            message: body.message,
            author: body.author ?? body.committer,
            committer: body.committer,
            allowEmpty: body.allow_empty ?? false,
            ...(writer.signal ? { signal: writer.signal } : {}),
          });
          built = commit;
          return [{ ref, old: current ?? zeroOid(head.objectFormat), new: commit }];
        },
      });
    } catch (error) {
      // Only a rebuild after a lost race meets a tree another writer changed: the first build saw the head the
      // client had in mind, and a change that does not fit it is the request's own mistake (400).
      if (error instanceof TreeConflictError && attempt > 1 && parentSeen !== undefined) throw new PathConflictError(ref, parentSeen, error);
      throw error;
    }
    if (result.outcome === 'published') return { ref, oid: built, commit_oid: built, seq: result.seq };
    // A new commit always moves the branch: `unchanged` cannot happen; `rejected` means the branch moved (or went),
    // or a branch to create collides with another's name.
    const rejected = result.refs.find((r) => r.status === 'rejected');
    if (rejected?.status === 'rejected' && rejected.reason === 'ref name conflict') throw new RefNameConflictError(ref, rejected.conflictsWith);
    const current = result.head.refs.get(ref);
    if (!forced) throw new RefMismatchError(ref, current);
    if (Date.now() >= deadline) throw new PublishContentionError(writer.repo);
  }
}

/**
 * The commit the new one goes on, from the synced head: the branch's head; on creation the `base` revision, or none
 * (a root commit). Throws the answer to a request that does not fit the branch as it is.
 */
async function parentOf(dir: string, head: RepoHead, ref: string, current: string | undefined, body: CommitRequest): Promise<string | null> {
  const zero = expectsAbsent(body);
  const creates = zero || body.base !== undefined;
  if (current !== undefined) {
    if (creates || (body.expected_head_oid !== undefined && body.expected_head_oid !== current)) throw new RefMismatchError(ref, current);
    return current;
  }
  if (body.expected_head_oid !== undefined && !zero) throw new RefMismatchError(ref, undefined);
  if (body.base !== undefined) {
    const base = await resolveCommit(dir, body.base);
    if (base === undefined) throw new RevisionNotFoundError(body.base, 'base');
    return base;
  }
  if (zero || ![...head.refs.keys()].some((name) => name.startsWith('refs/heads/'))) return null;
  throw new BranchNotFoundError(body.branch);
}

/** `expected_head_oid` is the zero oid: the branch must not exist. */
function expectsAbsent(body: CommitRequest): boolean {
  return body.expected_head_oid !== undefined && /^0+$/.test(body.expected_head_oid);
}

function checkBounds(body: CommitRequest): void {
  if (body.changes.length > MAX_CHANGES) throw new CommitTooLargeError(`${body.changes.length} changes; at most ${MAX_CHANGES} may be committed at once.`);
  let bytes = 0;
  for (const change of body.changes) if (change.op === 'upsert') bytes += decodedLength(change.content);
  if (bytes > MAX_CONTENT_BYTES) throw new CommitTooLargeError(`${bytes} bytes of content; at most ${MAX_CONTENT_BYTES} may be committed at once.`);
}
