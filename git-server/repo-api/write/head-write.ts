// `PUT /refs` (`write` scope): changes the repository's default branch, the branch HEAD names. A retarget is no ref
// change: nothing is published to the log, so no event is emitted (the spec: "HEAD retargets … emit nothing"); the
// manifest's HEAD changes by compare-and-swap, and every instance's next sync of the repository follows it.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { isValidRefName, parseUrlRepoPath } from '../../../src/repo-store/index.ts';
import type { RepoApiDependencies } from '../dependencies.ts';
import { DefaultRef } from '../refs.ts';
import type { RepoParams } from '../repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from '../schemas.ts';
import { InvalidWriteError, RefNotFoundError } from './write-errors.ts';

export const HeadWriteBody = Type.Object(
  {
    branch: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'The new default branch, short name (`master`, not `refs/heads/master`). It must exist, unless the repository has no branch yet.',
    }),
  },
  { additionalProperties: false },
);
type HeadWriteBody = Static<typeof HeadWriteBody>;

export function headWriteRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.put('/refs', {
    config: { scope: 'write' },
    schema: {
      summary: 'Change the default branch (HEAD); no event is emitted',
      params: RepoParamsSchema,
      body: HeadWriteBody,
      response: { 200: DefaultRef, 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 503: ErrorBodySchema },
    },
    handler: async (request) => retarget(deps, request, request.body as HeadWriteBody),
  });
}

async function retarget(deps: RepoApiDependencies, request: FastifyRequest, body: HeadWriteBody): Promise<DefaultRef> {
  const ref = `refs/heads/${body.branch}`;
  if (!isValidRefName(ref)) throw new InvalidWriteError(`${JSON.stringify(body.branch)} is not a valid branch name.`);
  const { owner, repo } = request.params as RepoParams;
  const name = parseUrlRepoPath(owner, repo).full;
  const { repoId } = await deps.repos.readHead(name, { fresh: true });
  const head = await deps.repos.amendHead(name, repoId, (current) => {
    if (current.headRef === ref) return undefined;
    // A dangling HEAD is what this route repairs: only an empty repository may name a branch still to come.
    if (!current.refs.has(ref) && [...current.refs.keys()].some((r) => r.startsWith('refs/heads/'))) throw new RefNotFoundError(ref);
    return { headRef: ref };
  });
  const sha = head.refs.get(head.headRef);
  return { head: sha ? { name: head.headRef, sha } : null };
}
