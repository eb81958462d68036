// `GET /tree/{rest}`: a directory's entries (directories first, then by name) and its README.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { PublicError } from '../../src/errors.ts';
import { decodeText, pickReadme } from '../plumbing/read/blob-content.ts';
import { readBlob } from '../plumbing/read/read-blob.ts';
import { listTree } from '../plumbing/read/tree-entries.ts';
import { cacheAddress, entryAt, resolveAddress } from './address.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import { readRepo } from './repo-read.ts';
import { EntryTypeField, PathField, RefField, RestParams, ShaField } from './resolve.ts';
import { ErrorBodySchema, RepoParamsSchema } from './schemas.ts';

/** Entries listed at most; a larger directory answers the first ones by name with `truncated: true`. */
export const MAX_TREE_ENTRIES = 5000;
/** A README's contents are inlined up to this size (and when they are text). */
export const MAX_README_INLINE = 512 * 1024;

export const Tree = Type.Object({
  ref: RefField,
  sha: ShaField,
  path: PathField,
  tree_sha: Type.String({ description: 'The tree listed.' }),
  entries: Type.Array(
    Type.Object({
      name: Type.String(),
      type: EntryTypeField,
      mode: Type.String({ description: 'Octal, as git writes it: `040000`, `100644`, `100755`, `120000`, `160000`.' }),
      size: Type.Union([Type.Integer(), Type.Null()], { description: 'Bytes of a blob; null for a tree or submodule.' }),
      sha: Type.String({ description: 'The entry’s object id.' }),
    }),
    { description: `Directories first, then by name (byte order); at most ${MAX_TREE_ENTRIES}.` },
  ),
  truncated: Type.Optional(Type.Literal(true, { description: `Present when the directory has more than ${MAX_TREE_ENTRIES} entries: the first ${MAX_TREE_ENTRIES} by name are listed.` })),
  readme: Type.Optional(
    Type.Object(
      {
        name: Type.String(),
        path: Type.String(),
        size: Type.Integer(),
        contents: Type.Optional(Type.String({ description: `UTF-8 text, when the README is text and at most ${MAX_README_INLINE} bytes.` })),
      },
      { description: 'The directory’s README (README.md first, then README, README.txt, … any case).' },
    ),
  ),
});
export type Tree = Static<typeof Tree>;

export function treeRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  for (const [url, params] of [
    ['/tree', RepoParamsSchema],
    ['/tree/*', RestParams],
  ] as const) {
    scope.get(url, {
      config: { scope: 'read' },
      schema: { summary: 'A directory: its entries and README', params, response: { 200: Tree, 400: ErrorBodySchema, 404: ErrorBodySchema } },
      handler: async (request, reply) =>
        readRepo(deps, request, async (repo) => {
          const address = await resolveAddress(repo, (request.params as { '*'?: string })['*']);
          const entry = await entryAt(repo.dir, address);
          if (entry.type !== 'tree') {
            const what = entry.type === 'blob' ? 'a file: read it with /blob/' : 'a submodule, not a directory';
            throw Object.assign(new PublicError(404, `Path ${JSON.stringify(address.path)} at ${address.revision} is ${what}.`), { code: 'not_a_tree' });
          }
          if (cacheAddress(request, reply, address)) return reply;
          const { entries, truncated } = await listTree(repo.dir, entry.sha, MAX_TREE_ENTRIES);
          const body: Tree = { ref: address.ref, sha: address.sha, path: address.path, tree_sha: entry.sha, entries, ...(truncated ? { truncated: true as const } : {}) };
          const readmeName = pickReadme(entries.filter((e) => e.type === 'blob' && e.mode !== '120000').map((e) => e.name));
          const readme = entries.find((e) => e.name === readmeName);
          if (readme) {
            const size = readme.size ?? 0;
            const contents = size <= MAX_README_INLINE ? decodeText(await readBlob(repo.dir, readme.sha, MAX_README_INLINE)) : undefined;
            body.readme = { name: readme.name, path: address.path ? `${address.path}/${readme.name}` : readme.name, size, ...(contents !== undefined ? { contents } : {}) };
          }
          return body;
        }),
    });
  }
}
