// `POST /initialize` (`write` scope): a pristine repository (no refs) gets one root commit whose tree is a pinned
// commit's tree of an allow-listed template repository of the same bucket (`api.initialize_sources`). The
// tree's objects are copied from the source's cached copy into the write's quarantine (copy-objects.ts) and
// published with the branch's creation as one `ref_update` entry (publishWrite).
//
// Idempotency: the commit records the operation in trailers (`Cloudwright-Operation: <key>`,
// `Cloudwright-Source: <owner/name> <commit>`). A request on a repository that is no longer pristine is a
// replay (200, `replayed: true`, the same commit, tree and seq) when the branch holds a root commit carrying
// the same key and source; anything else is 409 `not_pristine`. Two racing identical requests: one publishes,
// the other's publish is rejected (the branch exists) and it answers the replay.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { PublicError } from '../../../src/errors.ts';
import { copyObjects } from '../../plumbing/write/copy-objects.ts';
import { identityEnv } from '../../plumbing/write/git-ident.ts';
import { findLfsPointer } from '../../plumbing/write/lfs-pointers.ts';
import { runGit } from '../../../src/git/run-git.ts';
import { isValidRefName, parseRepoPath, parseUrlRepoPath, zeroOid, type RepoHead } from '../../../src/repo-store/index.ts';
import type { RepoApiDependencies } from '../dependencies.ts';
import type { RepoParams } from '../repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema, STORAGE_QUOTA_ERROR, WRITE_TURN_ERROR } from '../schemas.ts';
import { allowedSource, NotPristineError, ObjectFormatMismatchError, OPERATION_KEY, SourceNotAllowedError } from './operation.ts';
import { publishIntoPristine } from './pristine-publish.ts';

const OID = Type.String({ pattern: '^(?:[0-9a-f]{40}|[0-9a-f]{64})$', description: 'A full object id (lower-case hex).' });
const NAME = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._-]+$' });
const PERSON = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256 }),
    email: Type.String({ minLength: 1, maxLength: 256 }),
    when: Type.Optional(Type.String({ maxLength: 64, description: 'RFC 3339 with an explicit offset or `Z`; default now.' })),
  },
  { additionalProperties: false },
);
// A template's tree is copied whole: bounded well above any template, below a runaway.
const MAX_TEMPLATE_PACK_BYTES = 512 << 20;

export const InitializeRequest = Type.Object(
  {
    source: Type.Object(
      {
        owner: NAME,
        repo: NAME,
        commit_oid: { ...OID, description: 'The template commit whose tree is copied; it must be reachable from a ref of the source.' },
      },
      { additionalProperties: false, description: 'A repository of this bucket listed in `api.initialize_sources`.' },
    ),
    branch: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: "The branch short name; default the repository's HEAD branch." })),
    operation_key: OPERATION_KEY,
    message: Type.String({ minLength: 1, maxLength: 1 << 16, description: 'The commit message (the operation trailers are appended).' }),
    committer: PERSON,
    author: Type.Optional(PERSON),
  },
  { additionalProperties: false },
);
type InitializeRequest = Static<typeof InitializeRequest>;

export const InitializeResult = Type.Object({
  ref: Type.String({ description: 'The full ref name of the branch.' }),
  commit_oid: Type.String({ description: 'The root commit.' }),
  tree_oid: Type.String({ description: "The commit's tree: the source commit's tree." }),
  seq: Type.Integer({ description: 'The log entry that published it.' }),
  replayed: Type.Boolean({ description: 'true: an earlier request with the same operation key did this (200).' }),
});
type InitializeResult = Static<typeof InitializeResult>;

/** 404: the source commit does not exist in the source, or no ref of the source reaches it. */
export class SourceCommitNotFoundError extends PublicError {
  override readonly name = 'SourceCommitNotFoundError';
  readonly code = 'revision_not_found';
  constructor(source: string, oid: string) {
    super(404, `${source} has no commit ${oid} reachable from its refs.`);
  }
}

/** 422: the template tree holds an LFS pointer (its object would not follow the tree). */
export class LfsInTemplateError extends PublicError {
  override readonly name = 'LfsInTemplateError';
  readonly code = 'lfs_in_template';
  constructor(path: string) {
    super(422, `The template tree holds a Git LFS pointer (${JSON.stringify(path)}); LFS objects are not copied.`);
  }
}

export function initializeWriteRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.post('/initialize', {
    config: { scope: 'write' },
    schema: {
      summary: 'Initialize a pristine repository from a pinned service tree',
      params: RepoParamsSchema,
      body: InitializeRequest,
      response: {
        200: InitializeResult,
        201: InitializeResult,
        400: ErrorBodySchema,
        403: ErrorBodySchema,
        404: ErrorBodySchema,
        409: ErrorBodySchema,
        422: ErrorBodySchema,
        ...STORAGE_QUOTA_ERROR,
        ...WRITE_TURN_ERROR,
      },
    },
    handler: async (request, reply) => {
      const result = await initialize(deps, request, reply, request.body as InitializeRequest);
      return reply.code(result.replayed ? 200 : 201).send(result);
    },
  });
}

async function initialize(deps: RepoApiDependencies, request: FastifyRequest, reply: FastifyReply, body: InitializeRequest): Promise<InitializeResult> {
  const source = allowedSource(body.source, deps.initializeSources, 'api.initialize_sources');
  if (deps.heldByService && !deps.heldByService(parseRepoPath(source))) throw new SourceNotAllowedError(source, "api.initialize_sources: a project's repository of that name, not cw-git's own");
  const { owner, repo } = request.params as RepoParams;
  const target = parseUrlRepoPath(owner, repo).full;
  const trailers = `Cloudwright-Operation: ${body.operation_key}\nCloudwright-Source: ${source} ${body.source.commit_oid}\n`;
  const message = `${body.message.trimEnd()}\n\n${trailers}`;
  if (message.includes('\0')) throw new PublicError(400, 'The commit message contains a NUL character.');
  const identities = identityEnv(body.committer, body.author ?? body.committer);

  // Not pristine already: a replay or a conflict, decided without touching the source.
  const synced = await deps.cache.sync(target, { fresh: true });
  const ref = `refs/heads/${body.branch ?? branchOf(synced.head)}`;
  if (!isValidRefName(ref)) throw new PublicError(400, `${JSON.stringify(body.branch)} is not a valid branch name.`);
  if (synced.head.refs.size > 0) return replay(deps, target, synced, ref, trailers);

  const releaseSource = deps.cache.hold(source);
  try {
    const from = await deps.cache.sync(source, { fresh: true });
    if (from.head.objectFormat !== synced.head.objectFormat) throw new ObjectFormatMismatchError(from.head.objectFormat, synced.head.objectFormat);
    const tree = await sourceTree(from.dir, source, body.source.commit_oid);
    const lfs = await findLfsPointer(from.dir, tree);
    if (lfs !== undefined) throw new LfsInTemplateError(lfs);

    let commit = '';
    const result = await publishIntoPristine(deps, request, reply, async ({ env, head, signal }) => {
      await copyObjects({ sourceDir: from.dir, env, tips: [tree], maxBytes: MAX_TEMPLATE_PACK_BYTES, ...(signal ? { signal } : {}) });
      commit = (await runGit(['commit-tree', tree], { env: { ...env, ...identities }, stdin: message, ...(signal ? { signal } : {}) })).stdout.toString().trim();
      return [{ ref, old: zeroOid(head.objectFormat), new: commit }];
    });
    if (result?.outcome === 'published') return { ref, commit_oid: commit, tree_oid: tree, seq: result.seq, replayed: false };
    // Another writer got there first (perhaps the same request, retried while this one ran).
    return await replay(deps, target, await deps.cache.sync(target, { fresh: true }), ref, trailers);
  } finally {
    releaseSource();
  }
}

/** The repository's HEAD branch short name (`refs/heads/main` → `main`). */
function branchOf(head: RepoHead): string {
  return head.headRef.replace(/^refs\/heads\//, '');
}

/** The tree of `oid` in the source, which must be a commit reachable from one of the source's refs. */
async function sourceTree(dir: string, source: string, oid: string): Promise<string> {
  const env = { GIT_DIR: dir };
  const exists = await runGit(['cat-file', '-e', `${oid}^{commit}`], { env, okCodes: [0, 1, 128] });
  if (exists.code !== 0) throw new SourceCommitNotFoundError(source, oid);
  // An unreachable object (left over from a force push, soon collected) is not part of the source.
  const containing = await runGit(['for-each-ref', '--count=1', '--format=%(refname)', `--contains=${oid}`], { env });
  if (containing.stdout.length === 0) throw new SourceCommitNotFoundError(source, oid);
  return (await runGit(['rev-parse', '--verify', '--end-of-options', `${oid}^{tree}`], { env })).stdout.toString().trim();
}

/**
 * The answer for a target that has refs: the earlier result of this operation when `ref` holds a root commit
 * whose trailers are `trailers`, else 409.
 */
async function replay(deps: RepoApiDependencies, target: string, synced: { dir: string; head: RepoHead }, ref: string, trailers: string): Promise<InitializeResult> {
  const commit = synced.head.refs.get(ref);
  if (commit === undefined) throw new NotPristineError(target);
  const raw = (await runGit(['cat-file', 'commit', commit], { env: { GIT_DIR: synced.dir } })).stdout.toString();
  const headerEnd = raw.indexOf('\n\n');
  const headers = raw.slice(0, headerEnd);
  if (/^parent /m.test(headers) || !raw.endsWith(`\n\n${trailers}`)) throw new NotPristineError(target);
  const tree = /^tree ([0-9a-f]+)$/m.exec(headers)?.[1] ?? '';
  return { ref, commit_oid: commit, tree_oid: tree, seq: await seqOf(deps, target, ref, commit, synced.head), replayed: true };
}

// The log is searched from its start for the entry that created the branch; a page bounds the search.
const REPLAY_SEARCH_ENTRIES = 1000;

/** The seq of the entry that set `ref` to `commit`; when retention folded it away, the head's seq. */
async function seqOf(deps: RepoApiDependencies, repo: string, ref: string, commit: string, head: RepoHead): Promise<number> {
  const page = await deps.repos.listLog(repo, head.logStart, { limit: REPLAY_SEARCH_ENTRIES });
  const entry = page.entries.find((e) => e.refUpdates.some((u) => u.ref === ref && u.new === commit));
  return entry?.seq ?? head.seq;
}
