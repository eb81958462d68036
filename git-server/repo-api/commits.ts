// `GET /commits?ref=&path=&skip=&n=`: a page of a branch's (or any revision's) history, newest first.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { PublicError } from '../../src/errors.ts';
import { logCommits } from '../plumbing/read/commit-log.ts';
import { resolveCommit, RevisionNotFoundError } from '../plumbing/read/rev-parse.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import { CommitSchema, digest, isFullOid, withDeadline } from './history-schemas.ts';
import { immutable, revalidated } from './http-cache.ts';
import { readRepoInTurn } from './repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from './schemas.ts';
import { trimBoth } from '../../src/text/trim.ts';

export const COMMITS_DEFAULT = 35;
export const COMMITS_MAX = 200;
export const SKIP_MAX = 100_000;

export const CommitsQuery = Type.Object({
  ref: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'A branch, tag or commit; default: the default branch.' })),
  path: Type.Optional(Type.String({ maxLength: 4096, description: 'Only commits touching this file or directory (literal, no globs).' })),
  // Query values are text: the ranges are spelled as patterns (0 to 100000, 1 to 200), so the document states them.
  skip: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{0,4}|100000)$', description: `Commits to skip, 0 to ${SKIP_MAX}; default 0.` })),
  n: Type.Optional(Type.String({ pattern: '^([1-9]|[1-9][0-9]|1[0-9][0-9]|200)$', description: `Commits per page, 1 to ${COMMITS_MAX}; default ${COMMITS_DEFAULT}.` })),
});
type CommitsQuery = Static<typeof CommitsQuery>;

export const CommitList = Type.Object({
  ref: Type.String({ description: 'The revision as asked (the default branch name when none was).' }),
  sha: Type.String({ description: 'The commit it resolved to.' }),
  commits: Type.Array(CommitSchema),
  more: Type.Boolean({ description: 'True when a next page exists: ask again with `skip` + the commits answered.' }),
});
export type CommitList = Static<typeof CommitList>;

export function commitsRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.get('/commits', {
    config: { scope: 'read' },
    schema: {
      summary: 'List commits, newest first, optionally only those touching a path',
      params: RepoParamsSchema,
      querystring: CommitsQuery,
      response: { 200: CommitList, 400: ErrorBodySchema, 404: ErrorBodySchema, 422: ErrorBodySchema, 504: ErrorBodySchema },
    },
    handler: async (request, reply) =>
      readRepoInTurn(deps.reads.history, deps, request, reply, async ({ dir, head }) => {
        const query = request.query as CommitsQuery;
        const skip = bounded(query.skip, 0, 0, SKIP_MAX, 'skip');
        const n = bounded(query.n, COMMITS_DEFAULT, 1, COMMITS_MAX, 'n');
        const path = literalPath(query.path);
        const ref = query.ref ?? head.headRef.replace(/^refs\/heads\//, '');
        const sha = await resolveCommit(dir, query.ref ?? head.headRef);
        if (!sha) throw new RevisionNotFoundError(ref);
        if (isFullOid(ref, sha)) immutable(reply);
        else if (revalidated(request, reply, `${sha}-${digest([ref, path, skip, n])}`)) return reply;
        // One more than asked says whether a next page exists without counting the history.
        const { commits, cut } = await withDeadline((signal) => logCommits(dir, { revisions: [sha], path, skip, limit: n + 1, signal }));
        if (cut && commits.length === 0) throw Object.assign(new PublicError(422, 'A commit message is too large to list.'), { code: 'too_large' });
        const body: CommitList = { ref, sha, commits: commits.slice(0, n), more: cut || commits.length > n };
        return body;
      }),
  });
}

function bounded(text: string | undefined, fallback: number, min: number, max: number, name: string): number {
  const value = text === undefined ? fallback : Number(text);
  if (value < min || value > max) throw Object.assign(new PublicError(400, `${name} must be between ${min} and ${max}.`), { code: 'invalid_request' });
  return value;
}

/** A repository path without leading or trailing slashes; `.`/`..`/empty segments are refused. */
function literalPath(path: string | undefined): string | undefined {
  const trimmed = path === undefined ? undefined : trimBoth(path, '/');
  if (!trimmed) return undefined;
  if (trimmed.split('/').some((s) => s === '' || s === '.' || s === '..') || trimmed.includes('\0')) {
    throw Object.assign(new PublicError(400, `${JSON.stringify(trimmed.slice(0, 100))} is not a repository path.`), { code: 'invalid_request' });
  }
  return trimmed;
}
