// `GET /resolve` and `GET /resolve/{rest}`: which commit and which object a revision-and-path string names, so a
// client can address what it shows by object id from then on.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { cacheAddress, entryAt, resolveAddress } from './address.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import { readRepo } from './repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from './schemas.ts';

/** `/{owner}/{repo}` and the `{rest}` of `/resolve|tree|blob/{rest}`. */
export const RestParams = Type.Object({
  ...RepoParamsSchema.properties,
  '*': Type.String({
    maxLength: 4096,
    description:
      'A revision, then optionally `/` and a path: `feature/login/src/app.js`. The longest branch or tag name that is a whole-segment prefix wins (a branch before a tag of the same name); otherwise the first segment is a full or abbreviated commit id. Empty: the default branch.',
  }),
});

export const RefField = Type.Union([Type.String(), Type.Null()], { description: 'The full ref name the revision was, e.g. `refs/heads/main`; null when it was an object id.' });
export const ShaField = Type.String({ description: 'The commit read.' });
export const PathField = Type.String({ description: 'The path, normalised (no leading or trailing `/`); empty for the root.' });
export const EntryTypeField = Type.Union([Type.Literal('tree'), Type.Literal('blob'), Type.Literal('commit')], { description: '`tree` (directory), `blob` (file or symlink), `commit` (submodule).' });

export const Resolved = Type.Object({
  ref: RefField,
  sha: ShaField,
  path: PathField,
  kind: EntryTypeField,
  object_sha: Type.String({ description: 'The object at `path` (the root tree for an empty path).' }),
});
export type Resolved = Static<typeof Resolved>;

export function resolveRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  const schema = { summary: 'Resolve a revision and optional path to a commit and the object at the path', response: { 200: Resolved, 400: ErrorBodySchema, 404: ErrorBodySchema } };
  for (const [url, params] of [
    ['/resolve', RepoParamsSchema],
    ['/resolve/*', RestParams],
  ] as const) {
    scope.get(url, {
      config: { scope: 'read' },
      schema: { ...schema, params },
      handler: async (request, reply) =>
        readRepo(deps, request, async (repo) => {
          const address = await resolveAddress(repo, (request.params as { '*'?: string })['*']);
          const entry = await entryAt(repo.dir, address);
          if (cacheAddress(request, reply, address)) return reply;
          const body: Resolved = { ref: address.ref, sha: address.sha, path: address.path, kind: entry.type, object_sha: entry.sha };
          return body;
        }),
    });
  }
}
