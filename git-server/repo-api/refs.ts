// `GET /refs` (the default ref) and `GET /refs/{branches|tags}` (a page of them). Answered from the head's refs;
// a page of tags also asks git which of them are annotated (and what they peel to).
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { shapeTag } from './address.ts';
import { peelTags } from '../plumbing/read/peel-tags.ts';
import { pageRefs, type RefKind } from '../plumbing/read/ref-page.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import { revalidated } from './http-cache.ts';
import { readRepo } from './repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from './schemas.ts';

export const DefaultRef = Type.Object({
  head: Type.Union([Type.Object({ name: Type.String({ description: 'Full ref name, e.g. `refs/heads/main`.' }), sha: Type.String() }), Type.Null()], {
    description: 'The default branch and its commit; null while the branch does not exist (an empty repository).',
  }),
});
export type DefaultRef = Static<typeof DefaultRef>;

export const RefListParams = Type.Object({ ...RepoParamsSchema.properties, kind: Type.Union([Type.Literal('branches'), Type.Literal('tags')]) });

export const RefListQuery = Type.Object({
  prefix: Type.Optional(
    Type.String({
      maxLength: 1024,
      description:
        'A plain string prefix of the short name, as git’s `ref-prefix`: `v1.` lists `v1.2.3`; `feature` lists `feature/x` and `features`. For whole segments end it with `/`: `feature/` lists `feature/x` only.',
    }),
  ),
  q: Type.Optional(Type.String({ maxLength: 256, description: 'Case-insensitive substring of the name.' })),
  after: Type.Optional(Type.String({ maxLength: 1024, description: 'Exclusive cursor: the last name of the previous page.' })),
  n: Type.Optional(Type.String({ pattern: '^(?:[1-9][0-9]{0,2}|1000)$', description: 'Page size, 1 to 1000; default 100.' })),
});
type RefListQuery = Static<typeof RefListQuery>;

export const RefList = Type.Object({
  refs: Type.Array(
    Type.Object({
      name: Type.String({ description: 'Short name, without `refs/heads/` or `refs/tags/`.' }),
      sha: Type.String({ description: 'What the ref points at: the tag object for an annotated tag.' }),
      peeled: Type.Optional(Type.String({ description: 'Annotated tags only: the object the tag finally names (a commit, usually).' })),
    }),
  ),
  more: Type.Boolean({ description: 'Whether more refs match: ask again with `after` = the last name here.' }),
});
export type RefList = Static<typeof RefList>;

export const DEFAULT_PAGE = 100;

export function refsRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.get('/refs', {
    config: { scope: 'read' },
    schema: { summary: 'The default ref and its commit', params: RepoParamsSchema, response: { 200: DefaultRef, 404: ErrorBodySchema } },
    handler: async (request, reply) =>
      readRepo(deps, request, async ({ head }) => {
        // HEAD in the tag: a retarget changes the answer but not the seq.
        if (revalidated(request, reply, `${head.repoId}-${head.seq}-${shapeTag(head.headRef, request)}`)) return reply;
        const sha = head.refs.get(head.headRef);
        const body: DefaultRef = { head: sha ? { name: head.headRef, sha } : null };
        return body;
      }),
  });

  scope.get('/refs/:kind', {
    config: { scope: 'read' },
    schema: {
      summary: 'A page of branches or tags, in byte order of their names',
      params: RefListParams,
      querystring: RefListQuery,
      response: { 200: RefList, 400: ErrorBodySchema, 404: ErrorBodySchema },
    },
    handler: async (request, reply) =>
      readRepo(deps, request, async ({ dir, head }) => {
        const { kind } = request.params as { kind: RefKind };
        const query = request.query as RefListQuery;
        if (revalidated(request, reply, `${head.repoId}-${head.seq}-${shapeTag(kind, request)}`)) return reply;
        const page = pageRefs(head.refs, kind, { prefix: query.prefix, q: query.q, after: query.after, n: query.n ? Number(query.n) : DEFAULT_PAGE });
        if (kind === 'branches') return page satisfies RefList;
        const peeled = await peelTags(
          dir,
          page.refs.map((r) => r.sha),
        );
        const body: RefList = { refs: page.refs.map((r) => (peeled.has(r.sha) ? { ...r, peeled: peeled.get(r.sha) as string } : r)), more: page.more };
        return body;
      }),
  });
}
