// `GET /blob/{rest}`: a file. Inline in JSON up to 2 MiB (UTF-8 text as is; binary only when asked, as base64);
// `?raw=1` streams the bytes themselves, any size, from git to the socket.
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { PublicError } from '../../src/errors.ts';
import { decodeText, MAX_LFS_POINTER, parseLfsPointer } from '../../src/git/read/blob-content.ts';
import { readBlob, streamBlob } from '../../src/git/read/read-blob.ts';
import { cacheAddress, entryAt, resolveAddress } from './address.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import { readRepo } from './repo-read.ts';
import { PathField, RefField, RestParams, ShaField } from './resolve.ts';
import { ErrorBodySchema } from './schemas.ts';
import { baseUrl } from './summary.ts';

/** The spec's inline limit: larger blobs answer `too_large: true` and are read with `?raw=1`. */
export const MAX_INLINE_BLOB = 2 * 1024 * 1024;

export const BlobQuery = Type.Object({
  raw: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('true')], { description: 'Answer the bytes themselves (`text/plain; charset=utf-8`, `nosniff`), any size.' })),
  encoding: Type.Optional(
    Type.Union([Type.Literal('utf-8'), Type.Literal('base64')], { description: '`base64`: inline `contents` as base64 whatever they are (binary included). Default `utf-8`: text only.' }),
  ),
});
type BlobQuery = Static<typeof BlobQuery>;

export const Blob = Type.Object({
  ref: RefField,
  sha: ShaField,
  path: PathField,
  name: Type.String({ description: 'The last path segment.' }),
  blob_sha: Type.String({ description: 'The blob’s object id.' }),
  mode: Type.String({ description: '`100644`, `100755` or `120000` (a symlink: the contents are its target).' }),
  size: Type.Integer({ description: 'Bytes.' }),
  encoding: Type.Union([Type.Literal('utf-8'), Type.Literal('base64')], { description: 'How `contents` is (or would be) encoded: what `?encoding=` asked, default `utf-8`.' }),
  contents: Type.Optional(Type.String({ description: `Present up to ${MAX_INLINE_BLOB} bytes, for text, or for anything with \`?encoding=base64\`.` })),
  binary: Type.Optional(Type.Literal(true, { description: 'The bytes are not UTF-8 text (a NUL in the first 8000 bytes, or invalid UTF-8): no `contents` unless `?encoding=base64`.' })),
  too_large: Type.Optional(Type.Literal(true, { description: `Larger than ${MAX_INLINE_BLOB} bytes: no \`contents\`; read it with \`?raw=1\`.` })),
  lfs: Type.Optional(
    Type.Object(
      { oid: Type.String({ description: 'sha256 of the object.' }), size: Type.Integer(), href: Type.String({ description: 'The object through this service’s LFS basic transfer.' }) },
      { description: 'The file is a Git LFS pointer; the object it stands for.' },
    ),
  ),
});
export type Blob = Static<typeof Blob>;

export function blobRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.get('/blob/*', {
    config: { scope: 'read' },
    schema: {
      summary: 'A file: inline up to 2 MiB, or its raw bytes with ?raw=1',
      params: RestParams,
      querystring: BlobQuery,
      // Both bodies of a 200 are documented: `?raw=1` answers the bytes as text/plain (found by schemathesis).
      response: {
        200: { description: 'The file as JSON, or with `?raw=1` its bytes.', content: { 'application/json': { schema: Blob }, 'text/plain': { schema: { type: 'string' } } } },
        400: ErrorBodySchema,
        404: ErrorBodySchema,
      },
    },
    handler: async (request, reply) =>
      readRepo(deps, request, async (repo) => {
        const query = request.query as BlobQuery;
        const address = await resolveAddress(repo, (request.params as { '*': string })['*']);
        const entry = await entryAt(repo.dir, address);
        if (entry.type !== 'blob') {
          const what = entry.type === 'tree' ? 'a directory: list it with /tree/' : 'a submodule, not a file';
          throw Object.assign(new PublicError(404, `Path ${JSON.stringify(address.path)} at ${address.revision} is ${what}.`), { code: 'not_a_blob' });
        }
        if (cacheAddress(request, reply, address)) return reply;
        const size = entry.size ?? 0;

        if (query.raw) {
          // Streamed while the repository is held (readRepo): the handler returns once git has written it all.
          const out = new PassThrough();
          void reply.type('text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').header('content-length', String(size)).send(out);
          await streamBlob(repo.dir, entry.sha, out).then(
            () => out.end(),
            (error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))),
          );
          return reply;
        }

        const encoding = query.encoding ?? 'utf-8';
        const body: Blob = { ref: address.ref, sha: address.sha, path: address.path, name: entry.name, blob_sha: entry.sha, mode: entry.mode, size, encoding };
        if (size > MAX_INLINE_BLOB) return { ...body, too_large: true };
        const bytes = await readBlob(repo.dir, entry.sha, MAX_INLINE_BLOB);
        const text = decodeText(bytes);
        if (text === undefined) body.binary = true;
        if (encoding === 'base64') body.contents = bytes.toString('base64');
        else if (text !== undefined) body.contents = text;
        const pointer = text !== undefined && size < MAX_LFS_POINTER ? parseLfsPointer(text) : undefined;
        if (pointer) body.lfs = { ...pointer, href: `${baseUrl(deps, request)}/${repo.name}/info/lfs/objects/${pointer.oid}` };
        return body;
      }),
  });
}
