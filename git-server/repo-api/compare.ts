// `GET /compare/{base}...{head}`: what head adds since it left base (GitHub's three-dot comparison): the commits
// on head and not on base, and the diff from their merge base to head. Two dots are refused rather than given
// another meaning. Unrelated histories have no merge base: the diff is then from the empty tree (everything on
// head is new) and `merge_base` is null.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { PublicError } from '../../src/errors.ts';
import { logCommits } from '../plumbing/read/commit-log.ts';
import { diffFiles } from '../plumbing/read/diff-files.ts';
import { diffPatch } from '../plumbing/read/diff-patch.ts';
import { aheadBehind, emptyTree, mergeBase } from '../plumbing/read/merge-base.ts';
import { resolveCommit, RevisionNotFoundError } from '../plumbing/read/rev-parse.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import { CommitSchema, digest, FileChangeSchema, isFullOid, MAX_FILES, withDeadline } from './history-schemas.ts';
import { immutable, revalidated } from './http-cache.ts';
import { readRepoInTurn } from './repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from './schemas.ts';

/** Commits listed per comparison (GitHub's bound); the oldest are listed. */
export const COMPARE_MAX_COMMITS = 250;

const CompareParams = Type.Object({
  ...RepoParamsSchema.properties,
  '*': Type.String({ minLength: 5, maxLength: 515, description: '`{base}...{head}`: two revisions (branches, tags, commit ids) joined by three dots.' }),
});

const Side = Type.Object({ ref: Type.String({ description: 'The revision as asked.' }), sha: Type.String({ description: 'The commit it resolved to.' }) });

export const Comparison = Type.Object({
  base: Side,
  head: Side,
  merge_base: Type.Union([Type.String(), Type.Null()], { description: 'The best common ancestor; null for unrelated histories.' }),
  status: Type.Union([Type.Literal('identical'), Type.Literal('ahead'), Type.Literal('behind'), Type.Literal('diverged')]),
  ahead_by: Type.Integer({ description: 'Commits on head and not on base.' }),
  behind_by: Type.Integer({ description: 'Commits on base and not on head.' }),
  commits: Type.Array(CommitSchema, { description: `The commits on head and not on base, oldest first; the oldest ${COMPARE_MAX_COMMITS} when there are more.` }),
  commits_truncated: Type.Boolean(),
  files: Type.Array(FileChangeSchema, { description: `The files changed from the merge base (or the empty tree) to head; at most ${MAX_FILES}.` }),
  files_truncated: Type.Boolean(),
  patch: Type.String({ description: 'The unified diff from the merge base to head; at most 2 MiB, cut at a line end.' }),
  patch_truncated: Type.Boolean(),
  truncated: Type.Boolean({ description: 'True when any of commits, files or patch was cut.' }),
});
export type Comparison = Static<typeof Comparison>;

export function compareRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.get('/compare/*', {
    config: { scope: 'read' },
    schema: {
      summary: 'Compare two revisions: commits ahead and behind, merge base, files and patch from the merge base to head',
      params: CompareParams,
      response: { 200: Comparison, 400: ErrorBodySchema, 404: ErrorBodySchema, 504: ErrorBodySchema },
    },
    handler: async (request, reply) =>
      readRepoInTurn(deps.reads.history, deps, request, reply, async ({ dir }) => {
        const [base, head] = parseRange((request.params as Static<typeof CompareParams>)['*']);
        const [baseSha, headSha] = await Promise.all([resolveCommit(dir, base), resolveCommit(dir, head)]);
        if (!baseSha) throw new RevisionNotFoundError(base, 'base');
        if (!headSha) throw new RevisionNotFoundError(head, 'head');
        if (isFullOid(base, baseSha) && isFullOid(head, headSha)) immutable(reply);
        else if (revalidated(request, reply, `${baseSha}-${headSha}-${digest([base, head])}`)) return reply;
        return withDeadline(async (signal) => {
          const [mergeSha, counts] = await Promise.all([mergeBase(dir, baseSha, headSha, signal), aheadBehind(dir, baseSha, headSha, signal)]);
          const from = mergeSha ?? (await emptyTree(dir, signal));
          // git log lists newest first: skipping all but the oldest COMPARE_MAX_COMMITS leaves those, reversed below.
          const skip = Math.max(0, counts.ahead - COMPARE_MAX_COMMITS);
          const [log, files, patch] = await Promise.all([
            counts.ahead === 0 ? { commits: [], cut: false } : logCommits(dir, { revisions: [headSha, `^${baseSha}`], skip, limit: COMPARE_MAX_COMMITS, signal }),
            diffFiles(dir, from, headSha, { maxFiles: MAX_FILES, signal }),
            diffPatch(dir, from, headSha, { signal }),
          ]);
          const commitsTruncated = skip > 0 || log.cut;
          const body: Comparison = {
            base: { ref: base, sha: baseSha },
            head: { ref: head, sha: headSha },
            merge_base: mergeSha,
            status: counts.ahead === 0 ? (counts.behind === 0 ? 'identical' : 'behind') : counts.behind === 0 ? 'ahead' : 'diverged',
            ahead_by: counts.ahead,
            behind_by: counts.behind,
            commits: log.commits.reverse(),
            commits_truncated: commitsTruncated,
            files: files.files,
            files_truncated: files.cut,
            patch: patch.patch,
            patch_truncated: patch.truncated,
            truncated: commitsTruncated || files.cut || patch.truncated,
          };
          return body;
        });
      }),
  });
}

/** `base...head` → [base, head]; two dots, a missing side or a second `...` are refused. */
export function parseRange(range: string): [string, string] {
  const at = range.indexOf('...');
  const base = range.slice(0, at);
  const head = range.slice(at + 3);
  if (at < 0 || base === '' || head === '' || head.includes('...')) {
    throw Object.assign(new PublicError(400, `${JSON.stringify(range.slice(0, 100))} is not a comparison: write {base}...{head} (three dots).`), { code: 'invalid_request' });
  }
  return [base, head];
}
