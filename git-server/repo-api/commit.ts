// `GET /commit/{revision}`: one commit with the files it changed and its patch, against its first parent (a root
// commit against the empty tree), as GitHub shows a merge.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { logCommits } from '../plumbing/read/commit-log.ts';
import { diffFiles } from '../plumbing/read/diff-files.ts';
import { diffPatch } from '../plumbing/read/diff-patch.ts';
import { emptyTree } from '../plumbing/read/merge-base.ts';
import { resolveCommit, RevisionNotFoundError } from '../plumbing/read/rev-parse.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import { CommitSchema, FileChangeSchema, isFullOid, MAX_FILES, withDeadline } from './history-schemas.ts';
import { immutable, revalidated } from './http-cache.ts';
import { readRepoInTurn } from './repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from './schemas.ts';

const CommitParams = Type.Object({
  ...RepoParamsSchema.properties,
  '*': Type.String({ minLength: 1, maxLength: 256, description: 'A commit id (full or abbreviated), branch, tag or `main~2`.' }),
});

export const CommitDetails = Type.Object({
  commit: CommitSchema,
  stats: Type.Array(FileChangeSchema, { description: `The files changed against the first parent, in path order; at most ${MAX_FILES}.` }),
  stats_truncated: Type.Boolean({ description: `True when more than ${MAX_FILES} files changed.` }),
  patch: Type.String({ description: 'The unified diff against the first parent, with renames; at most 2 MiB, cut at a line end.' }),
  patch_truncated: Type.Boolean(),
  truncated: Type.Boolean({ description: 'True when anything above was cut.' }),
});
export type CommitDetails = Static<typeof CommitDetails>;

export function commitRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.get('/commit/*', {
    config: { scope: 'read' },
    schema: {
      summary: 'Commit details: the commit, the files it changed with line counts, its patch',
      params: CommitParams,
      response: { 200: CommitDetails, 400: ErrorBodySchema, 404: ErrorBodySchema, 504: ErrorBodySchema },
    },
    handler: async (request, reply) =>
      readRepoInTurn(deps.reads.history, deps, request, reply, async ({ dir }) => {
        const revision = (request.params as Static<typeof CommitParams>)['*'];
        const sha = await resolveCommit(dir, revision);
        if (!sha) throw new RevisionNotFoundError(revision);
        // Everything below follows from the commit alone.
        if (isFullOid(revision, sha)) immutable(reply);
        else if (revalidated(request, reply, sha)) return reply;
        return withDeadline(async (signal) => {
          const [commit] = (await logCommits(dir, { revisions: [sha], limit: 1, signal })).commits;
          if (!commit) throw new RevisionNotFoundError(revision);
          const from = commit.parents[0] ?? (await emptyTree(dir, signal));
          const [stats, patch] = await Promise.all([diffFiles(dir, from, sha, { maxFiles: MAX_FILES, signal }), diffPatch(dir, from, sha, { signal })]);
          const body: CommitDetails = {
            commit,
            stats: stats.files,
            stats_truncated: stats.cut,
            patch: patch.patch,
            patch_truncated: patch.truncated,
            truncated: stats.cut || patch.truncated,
          };
          return body;
        });
      }),
  });
}
