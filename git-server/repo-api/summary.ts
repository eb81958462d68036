// `GET /api`: what a repository page shows first. Answered from the head (refs and HEAD) alone: no git process.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { RepoApiDependencies } from './dependencies.ts';
import { shapeTag } from './address.ts';
import { revalidated } from './http-cache.ts';
import { readRepo } from './repo-read.ts';
import { RepoParamsSchema } from './schemas.ts';
import { trimTrailing } from '../../src/text/trim.ts';

export const RepoSummary = Type.Object({
  owner: Type.String(),
  name: Type.String(),
  full_name: Type.String({ description: '`owner/name`.' }),
  default_branch: Type.String({ description: 'The branch HEAD names, e.g. `main`.' }),
  head: Type.Union([Type.Object({ name: Type.String({ description: 'Full ref name.' }), sha: Type.String() }), Type.Null()], {
    description: 'The default branch and its commit; null while the branch does not exist (an empty repository).',
  }),
  branches: Type.Integer({ description: 'How many branches.' }),
  tags: Type.Integer({ description: 'How many tags.' }),
  clone_url: Type.String(),
  api_url: Type.String(),
});
export type RepoSummary = Static<typeof RepoSummary>;

export function summaryRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.get('/', {
    config: { scope: 'read' },
    schema: { summary: 'Repository summary: default branch and its head, branch and tag counts, clone URL', params: RepoParamsSchema, response: { 200: RepoSummary } },
    handler: async (request, reply) =>
      readRepo(deps, request, async ({ head, name }) => {
        const defaultRef = head.headRef;
        const sha = head.refs.get(defaultRef);
        let branches = 0;
        let tags = 0;
        for (const ref of head.refs.keys()) {
          if (ref.startsWith('refs/heads/')) branches++;
          else if (ref.startsWith('refs/tags/')) tags++;
        }
        // The head's seq and HEAD say everything this answer is made of (a retarget of HEAD keeps the seq).
        if (revalidated(request, reply, `${head.repoId}-${head.seq}-${shapeTag(head.headRef, request)}`)) return reply;
        const base = baseUrl(deps, request);
        const [owner = '', repo = ''] = name.split('/');
        const body: RepoSummary = {
          owner,
          name: repo,
          full_name: name,
          default_branch: defaultRef.replace(/^refs\/heads\//, ''),
          head: sha ? { name: defaultRef, sha } : null,
          branches,
          tags,
          clone_url: `${base}/${name}.git`,
          api_url: `${base}/${name}/api`,
        };
        return body;
      }),
  });
}

/** This service's base URL: the configured public URL, else what the request was addressed to. */
export function baseUrl(deps: RepoApiDependencies, request: FastifyRequest): string {
  return trimTrailing(deps.publicUrl ?? `${request.protocol}://${request.host}`, '/');
}
