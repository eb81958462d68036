// `GET /blob/{rest}`: a file. Inline in JSON up to 2 MiB (UTF-8 text as is; binary only when asked, as base64);
// `?raw=1`, or an `Accept` that prefers the bytes to JSON, streams the bytes themselves, any size, from git to the
// socket (blob-raw.ts). JSON stays the default: no `Accept`, `*/*` (curl's and fetch's), or a tie.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { PublicError } from '../../src/errors.ts';
import { decodeText, MAX_LFS_POINTER, parseLfsPointer } from '../plumbing/read/blob-content.ts';
import { readBlob } from '../plumbing/read/read-blob.ts';
import { negotiate } from './accept.ts';
import { cacheAddress, entryAt, resolveAddress } from './address.ts';
import { openBlob, RAW_BINARY, RAW_TEXT } from './blob-raw.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import { readRepoInTurn } from './repo-read.ts';
import { PathField, RefField, RestParams, ShaField } from './resolve.ts';
import { ErrorBodySchema } from './schemas.ts';
import { baseUrl } from './summary.ts';

/** The spec's inline limit: larger blobs answer `too_large: true` and are read with `?raw=1`. */
export const MAX_INLINE_BLOB = 2 * 1024 * 1024;

export const BlobQuery = Type.Object({
  raw: Type.Optional(
    Type.Union([Type.Literal('1'), Type.Literal('true')], {
      description: 'Answer the bytes themselves, any size, whatever `Accept` says: `text/plain; charset=utf-8` for text, `application/octet-stream` for binary files.',
    }),
  ),
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

const JSON_TYPE = 'application/json';
/** Every type the route can answer, JSON (the default) first; which raw ones apply depends on the file. */
const OFFERS = [JSON_TYPE, 'text/plain', 'application/octet-stream'];

const RAW_DESCRIPTION = [
  'JSON by default (no `Accept`, `*/*`, `application/json`, or a tie). An `Accept` that prefers the bytes (RFC 9110 negotiation: `text/plain`, `application/octet-stream`, `application/json;q=0, */*`) or `?raw=1` answers the file itself, streamed, any size.',
  `Its type is guessed from its first 8000 bytes: \`${RAW_TEXT}\` for text (no NUL, UTF-8), \`${RAW_BINARY}\` otherwise (a text file may also be asked for as \`${RAW_BINARY}\`); never a type a browser renders as active content.`,
  'An Accept that allows neither JSON nor the file’s type (`text/plain` for a binary file, `text/html`) answers 406 `not_acceptable`. Git LFS pointers are answered as the pointer.',
].join(' ');

const RAW_HEADERS = {
  'x-content-type-options': { type: 'string', description: '`nosniff` on raw answers.' },
  'content-security-policy': { type: 'string', description: "`default-src 'none'; sandbox` on raw answers." },
  'content-disposition': { type: 'string', description: 'Raw answers: `inline` for text, `attachment` for binary files, with the file name.' },
  vary: { type: 'string', description: '`Accept`: JSON and the raw bytes are two representations of one URL.' },
};

/** 406: the client accepts neither JSON nor any type the file's bytes can be answered as. */
function notAcceptable(request: FastifyRequest, offers: readonly string[]): PublicError {
  const accept = JSON.stringify(request.headers.accept ?? '');
  return Object.assign(new PublicError(406, `Accept ${accept} allows none of the types this file can be answered as: ${[JSON_TYPE, ...offers].join(', ')}.`), { code: 'not_acceptable' });
}

export function blobRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.get('/blob/*', {
    config: { scope: 'read' },
    schema: {
      summary: 'A file: inline up to 2 MiB, or its raw bytes with ?raw=1 or Accept',
      description: RAW_DESCRIPTION,
      params: RestParams,
      querystring: BlobQuery,
      // Every body of a 200 is documented: the raw bytes are text/plain or application/octet-stream (found by schemathesis).
      response: {
        200: {
          description: 'The file as JSON, or its bytes (`?raw=1`, or an `Accept` preferring them).',
          headers: RAW_HEADERS,
          content: {
            'application/json': { schema: Blob },
            'text/plain': { schema: { type: 'string', description: 'A text file’s bytes (UTF-8).' } },
            'application/octet-stream': { schema: { type: 'string', format: 'binary', description: 'The file’s bytes.' } },
          },
        },
        400: ErrorBodySchema,
        404: ErrorBodySchema,
        406: {
          description: 'The `Accept` allows neither JSON nor a type the file’s bytes can be answered as (`not_acceptable`).',
          content: { 'application/json': { schema: ErrorBodySchema } },
        },
      },
    },
    handler: async (request, reply) =>
      readRepoInTurn(deps.reads.files, deps, request, reply, async (repo) => {
        const query = request.query as BlobQuery;
        const address = await resolveAddress(repo, (request.params as { '*': string })['*']);
        const entry = await entryAt(repo.dir, address);
        if (entry.type !== 'blob') {
          const what = entry.type === 'tree' ? 'a directory: list it with /tree/' : 'a submodule, not a file';
          throw Object.assign(new PublicError(404, `Path ${JSON.stringify(address.path)} at ${address.revision} is ${what}.`), { code: 'not_a_blob' });
        }
        // Every answer depends on Accept: caches must key on it (the ETag does, below).
        void reply.header('vary', 'Accept');
        if (cacheAddress(request, reply, address, request.headers.accept ?? '')) return reply;
        const size = entry.size ?? 0;

        const accept = request.headers.accept;
        if (query.raw || negotiate(accept, OFFERS) !== JSON_TYPE) {
          const blob = await openBlob(repo.dir, entry.sha, size);
          const type = query.raw ? blob.offers[0] : negotiate(accept, [JSON_TYPE, ...blob.offers]);
          if (type !== JSON_TYPE) {
            if (type === undefined) {
              await blob.cancel();
              throw notAcceptable(request, blob.offers);
            }
            // Streamed while the repository is held (readRepo): the handler returns once git has written it all.
            await blob.send(reply, type, entry.name);
            return reply;
          }
          await blob.cancel();
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
