// `POST /api/merges`: merge a revision into a branch (merge, squash or fast-forward-only) and move the branch
// through the log, as one write: the merge is computed in publishWrite's quarantine on the synced copy, and the
// branch moves only from `expected_base_oid`, so a concurrent push makes this a 409, never a lost update.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { checkRevision, resolveCommit, RevisionNotFoundError } from '../../plumbing/read/rev-parse.ts';
import { computeMerge, MERGE_STRATEGIES, type MergeOutcome } from '../../plumbing/write/merge.ts';
import { isValidRefName, parseUrlRepoPath, type RefUpdate } from '../../../src/repo-store/index.ts';
import { BadRequestError } from '../../../src/errors.ts';
import { principalOf } from '../../auth/git-auth.ts';
import type { RepoApiDependencies } from '../dependencies.ts';
import type { RepoParams } from '../repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema, STORAGE_QUOTA_ERROR, WRITE_TURN_ERROR } from '../schemas.ts';
import { BranchNotFoundError, MergeConflictBody, MergeConflictError, NotFastForwardError, UnrelatedHistoriesError } from './merge-errors.ts';
import { RefMismatchError } from './write-errors.ts';
import { publishWrite } from './publish-write.ts';
import { writeInTurn } from './write-turns.ts';

const Oid = Type.String({ pattern: '^(?:[0-9a-f]{40}|[0-9a-f]{64})$', description: 'A full object id.' });

const Person = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 256 }),
  email: Type.String({ minLength: 1, maxLength: 256 }),
  when: Type.Optional(Type.String({ maxLength: 64, description: 'RFC 3339 with an explicit offset or `Z`; default: now (UTC).' })),
});

export const MergeRequestBody = Type.Object({
  base: Type.String({ minLength: 1, maxLength: 255, description: 'The branch merged into (`main` or `refs/heads/main`).' }),
  head: Type.String({ minLength: 1, maxLength: 256, description: 'The revision merged: a branch, tag or commit id.' }),
  message: Type.Optional(
    Type.String({ minLength: 1, maxLength: 65536, description: 'The new commit\'s message (merge, squash). Default: "Merge <head> into <base>", or "Squash <head> into <base>" for a squash.' }),
  ),
  committer: Person,
  author: Type.Optional(Person),
  strategy: Type.Union(
    MERGE_STRATEGIES.map((s) => Type.Literal(s)),
    { description: 'merge: a commit with two parents; squash: one parent, the same tree; fast-forward-only: the branch moves to head or 409.' },
  ),
  expected_base_oid: { ...Oid, description: 'Where the branch must be now; otherwise 409 ref_mismatch with `current_oid`.' },
});
type MergeRequestBody = Static<typeof MergeRequestBody>;

export const MergeCreated = Type.Object({
  ref: Type.String({ description: 'The branch, as a full ref name.' }),
  oid: Type.String({ description: 'Where the branch is now: the new commit, or head on a fast-forward.' }),
  commit_oid: Type.Optional(Type.String({ description: 'The new commit (absent on a fast-forward).' })),
  seq: Type.Integer({ description: 'The log sequence that published the move.' }),
  already_merged: Type.Literal(false),
});

export const AlreadyMerged = Type.Object({
  ref: Type.String(),
  oid: Type.String({ description: 'Where the branch is (unchanged).' }),
  already_merged: Type.Literal(true),
});

export function mergesWriteRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.post('/merges', {
    config: { scope: 'write' },
    bodyLimit: 256 << 10,
    schema: {
      summary: 'Merge a revision into a branch (merge, squash or fast-forward-only), moving it from expected_base_oid',
      params: RepoParamsSchema,
      body: MergeRequestBody,
      response: { 200: AlreadyMerged, 201: MergeCreated, 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: MergeConflictBody, ...STORAGE_QUOTA_ERROR, ...WRITE_TURN_ERROR },
    },
    handler: async (request, reply) => {
      const { owner, repo } = request.params as RepoParams;
      const body = request.body as MergeRequestBody;
      const ref = body.base.startsWith('refs/heads/') ? body.base : `refs/heads/${body.base}`;
      if (!isValidRefName(ref)) throw new BadRequestError(`${JSON.stringify(body.base)} is not a valid branch name.`);
      checkRevision(body.head); // before the turn, as the rest of what the request alone is refused for
      const expected = body.expected_base_oid;
      let outcome: MergeOutcome | undefined;
      const result = await writeInTurn(deps, request, reply, (signal) =>
        publishWrite(deps, {
          repo: parseUrlRepoPath(owner, repo).full,
          principal: principalOf(request).name,
          requestId: request.id,
          signal,
          build: async ({ dir, env, head }) => {
            const current = head.refs.get(ref);
            if (current === undefined) throw new BranchNotFoundError(ref);
            if (current !== expected) throw new RefMismatchError(ref, current);
            const headOid = await resolveCommit(dir, body.head);
            if (!headOid) throw new RevisionNotFoundError(body.head, 'head');
            const base = ref.slice('refs/heads/'.length);
            const message = body.message ?? `${body.strategy === 'squash' ? 'Squash' : 'Merge'} ${body.head} into ${base}`;
            outcome = await computeMerge({
              dir,
              env,
              base: expected,
              head: headOid,
              strategy: body.strategy,
              message,
              committer: body.committer,
              signal,
              ...(body.author ? { author: body.author } : {}),
            });
            return [refUpdate(ref, expected, outcome, body.head)];
          },
        }),
      );
      if (result.outcome === 'rejected' || outcome === undefined) throw new RefMismatchError(ref, result.head.refs.get(ref));
      if (outcome.kind === 'already_merged') return reply.code(200).send({ ref, oid: expected, already_merged: true });
      // Unchanged: an identical merge (the same fast-forward, or the same commit built in the same second) moved
      // the branch first. It is where this request asked, so this is its answer too, at the head that shows it.
      const seq = result.outcome === 'published' ? result.seq : result.head.seq;
      const oid = outcome.kind === 'committed' || outcome.kind === 'fast_forward' ? outcome.oid : expected;
      return reply.code(201).send({ ref, oid, ...(outcome.kind === 'committed' ? { commit_oid: outcome.oid } : {}), seq, already_merged: false });
    },
  });
}

/**
 * The branch's move for `outcome`, from `base`: to the new commit or head; already merged is a no-op update
 * (old = new), so the publish still checks the branch is where the answer says it is. Other outcomes are 409s.
 */
function refUpdate(ref: string, base: string, outcome: MergeOutcome, head: string): RefUpdate {
  switch (outcome.kind) {
    case 'committed':
    case 'fast_forward':
      return { ref, old: base, new: outcome.oid };
    case 'already_merged':
      return { ref, old: base, new: base };
    case 'conflict':
      throw new MergeConflictError(outcome.conflicts);
    case 'not_fast_forward':
      throw new NotFastForwardError(ref, head);
    case 'unrelated_histories':
      throw new UnrelatedHistoriesError(ref, head);
  }
}
