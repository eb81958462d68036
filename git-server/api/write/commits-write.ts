// `POST /commits` (`write` scope): a batch of file changes committed on a branch with no clone. The blobs, trees
// and the commit are built with git's plumbing in a quarantine (src/git/write/build-commit.ts) and published with
// the branch's move as one `ref_update` log entry (publishWrite).
//
// Decisions: the branch must exist (404 `revision_not_found`): a commit request never creates a branch, so a typo
// cannot start a parallel history; create it with `PUT /refs/heads/{name}` first. Without `expected_head_oid` the
// commit goes on whatever the branch's head is when the write starts (re-tried on a lost race, a few times).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { principalOf } from '../../auth/index.ts';
import { PublicError } from '../../../src/errors.ts';
import { buildCommit } from '../../../src/git/write/build-commit.ts';
import { decodedLength } from '../../../src/git/write/changes.ts';
import { isValidRefName, parseUrlRepoPath, type PublishResult } from '../../../src/repo-store/index.ts';
import type { RepoApiDependencies } from '../dependencies.ts';
import type { RepoParams } from '../repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from '../schemas.ts';
import { publishWrite } from './publish-write.ts';
import { RefConflictBody, RefMismatchError } from './write-errors.ts';

/** At most this many changes in one request (413 beyond). */
export const MAX_CHANGES = 1000;
/** At most this many bytes of (decoded) file content in one request (413 beyond). */
export const MAX_CONTENT_BYTES = 16 << 20;
// The JSON around it: 16 MiB in base64 plus up to 1000 long paths.
const BODY_LIMIT = Math.ceil((MAX_CONTENT_BYTES * 4) / 3) + (5 << 20);
// A forced commit (no expected_head_oid) that loses the race to another writer is built again on the new head.
const FORCE_ATTEMPTS = 3;

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

export const CommitChange = Type.Union([
  Type.Object(
    {
      op: Type.Literal('upsert'),
      path: PATH,
      content: Type.String({ description: 'The file content, standard base64 (a symbolic link: its target).' }),
      mode: Type.Union([Type.Literal('100644'), Type.Literal('100755'), Type.Literal('120000')]),
    },
    { additionalProperties: false },
  ),
  Type.Object({ op: Type.Literal('delete'), path: PATH }, { additionalProperties: false }),
  Type.Object({ op: Type.Literal('rename'), from: PATH, to: PATH }, { additionalProperties: false }),
]);

export const CommitRequest = Type.Object(
  {
    branch: Type.String({ minLength: 1, maxLength: 1000, description: 'The branch short name; it must exist.' }),
    message: Type.String({ maxLength: 1 << 20, description: 'The commit message.' }),
    expected_head_oid: Type.Optional({ ...OID, description: 'Where the branch must be now (409 otherwise); omitted: the commit goes on the current head.' }),
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
    super(404, `Branch ${JSON.stringify(branch)} does not exist; create it first (PUT /api/refs/heads/${branch}).`);
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

export function commitsWriteRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.post('/commits', {
    config: { scope: 'write' },
    bodyLimit: BODY_LIMIT,
    schema: {
      summary: 'Commit a batch of file changes on a branch',
      params: RepoParamsSchema,
      body: CommitRequest,
      response: { 201: CommitResult, 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: RefConflictBody, 413: ErrorBodySchema },
    },
    handler: async (request, reply) => reply.code(201).send(await commit(deps, request, request.body as CommitRequest)),
  });
}

async function commit(deps: RepoApiDependencies, request: FastifyRequest, body: CommitRequest): Promise<CommitResult> {
  checkBounds(body);
  const ref = `refs/heads/${body.branch}`;
  if (!isValidRefName(ref)) throw new PublicError(400, `${JSON.stringify(body.branch)} is not a valid branch name.`);
  const { owner, repo } = request.params as RepoParams;
  const writer = { repo: parseUrlRepoPath(owner, repo).full, principal: principalOf(request).name, requestId: request.id };
  for (let attempt = 1; ; attempt++) {
    let built = '';
    const result: PublishResult = await publishWrite(deps, {
      ...writer,
      build: async ({ dir, env, head }) => {
        const current = head.refs.get(ref);
        if (current === undefined) throw new BranchNotFoundError(body.branch);
        if (body.expected_head_oid !== undefined && body.expected_head_oid !== current) throw new RefMismatchError(ref, current);
        const { commit } = await buildCommit({
          dir,
          env,
          tmpDir: deps.cache.tmpDir,
          parent: current,
          changes: body.changes,
          message: body.message,
          author: body.author ?? body.committer,
          committer: body.committer,
          allowEmpty: body.allow_empty ?? false,
        });
        built = commit;
        return [{ ref, old: current, new: commit }];
      },
    });
    if (result.outcome === 'published') return { ref, oid: built, commit_oid: built, seq: result.seq };
    // A new commit always moves the branch: `unchanged` cannot happen; `rejected` means the branch moved (or went).
    const current = result.head.refs.get(ref);
    if (current === undefined) throw new BranchNotFoundError(body.branch);
    if (body.expected_head_oid !== undefined || attempt >= FORCE_ATTEMPTS) throw new RefMismatchError(ref, current);
  }
}

function checkBounds(body: CommitRequest): void {
  if (body.changes.length > MAX_CHANGES) throw new CommitTooLargeError(`${body.changes.length} changes; at most ${MAX_CHANGES} may be committed at once.`);
  let bytes = 0;
  for (const change of body.changes) if (change.op === 'upsert') bytes += decodedLength(change.content);
  if (bytes > MAX_CONTENT_BYTES) throw new CommitTooLargeError(`${bytes} bytes of content; at most ${MAX_CONTENT_BYTES} may be committed at once.`);
}
