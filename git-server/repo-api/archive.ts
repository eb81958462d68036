// `GET|HEAD /api/archive/{archive_ref}`: the repository at one commit as `git archive` makes it. A plain GET streams
// git's output straight to the client; HEAD and Range requests (which need the size) use a spooled copy
// (archive-spool.ts), and so does a GET arriving while one exists.
import { callerOf } from '../request-turn.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PassThrough } from 'node:stream';
import { runsPer } from '../owner-runs.ts';
import { Type } from 'typebox';
import { ARCHIVE_FORMATS, dependsOnRefs, writeArchive, type ArchiveRequest } from '../plumbing/read/archive.ts';
import { resolveCommit, RevisionNotFoundError } from '../plumbing/read/rev-parse.ts';
import { archiveFileName, archiveTag, checkPrefix, contentDisposition, CONTENT_TYPES, defaultPrefix, isFullObjectId, parseArchiveRef } from './archive-name.ts';
import type { SpooledArchive } from './archive-spool.ts';
import { byteRange } from './byte-range.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import { immutable } from './http-cache.ts';
import { readRepo, type RepoParams } from './repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from './schemas.ts';

const ArchiveParams = Type.Object({
  ...RepoParamsSchema.properties,
  '*': Type.String({ minLength: 1, maxLength: 300, description: '`<revision>.tar.gz` or `<revision>.zip` (a branch, tag, commit id, `main~2`); with `format`, any revision.' }),
});

const ArchiveQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Union(
        ARCHIVE_FORMATS.map((f) => Type.Literal(f)),
        { description: 'The format, when `archive_ref` does not end in it.' },
      ),
    ),
    prefix: Type.Optional(Type.String({ maxLength: 200, description: 'Prepended to every path, as `git archive --prefix` (default `<repo>-<short sha>/`; empty for none).' })),
  },
  { additionalProperties: false },
);

const binary = (description: string) => ({
  description,
  content: Object.fromEntries(Object.values(CONTENT_TYPES).map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
});

export function archiveRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.route<{ Params: RepoParams & { '*': string }; Querystring: { format?: string; prefix?: string } }>({
    method: ['GET', 'HEAD'],
    url: '/archive/*',
    config: { scope: 'read', wildcard: 'archive_ref' },
    schema: {
      summary: 'Download the repository at one commit as tar.gz or zip, byte for byte what `git archive` makes; Range and If-None-Match supported',
      params: ArchiveParams,
      querystring: ArchiveQuery,
      response: {
        200: binary(
          'The archive. Immutable when `archive_ref` names a full commit id and the tree has no export-subst placeholders (their expansion follows the refs); otherwise revalidate with the ETag.',
        ),
        206: binary('The requested byte range (`Content-Range`).'),
        304: { description: 'The client already has it (If-None-Match).', type: 'null' },
        400: ErrorBodySchema,
        404: ErrorBodySchema,
        416: ErrorBodySchema,
        429: Type.Object(ErrorBodySchema.properties, {
          description: 'The caller, or the repository’s owner, has two archives being made at once (`owner_archives_limit`, `Retry-After`; 503 `archives_busy` past the instance’s four).',
        }),
      },
    },
    handler: async (request, reply) =>
      readRepo(deps, request, async (repo) => {
        const { revision, format } = parseArchiveRef(request.params['*'], request.query.format);
        const commit = await resolveCommit(repo.dir, revision);
        if (!commit) throw new RevisionNotFoundError(revision);
        const repoName = repo.name.split('/')[1] ?? repo.name;
        const prefix = request.query.prefix === undefined ? defaultPrefix(repoName, commit) : checkPrefix(request.query.prefix);
        // An archive with export-subst placeholders is made of this repository's refs too: its own, changing with them.
        const refs = (await dependsOnRefs(repo.dir, commit)) ? { repoId: repo.head.repoId, seq: repo.head.seq } : undefined;
        const tag = archiveTag(commit, format, prefix, refs);
        const etag = `"${tag}"`;
        reply
          .header('etag', etag)
          .header('accept-ranges', 'bytes')
          .header('content-disposition', contentDisposition(archiveFileName(repoName, commit, format)))
          .type(CONTENT_TYPES[format]);
        if (isFullObjectId(revision) && !refs) immutable(reply);
        else reply.header('cache-control', 'no-cache');
        if (hasTag(request.headers['if-none-match'], etag)) return reply.code(304).send();

        const archive: ArchiveRequest = { dir: repo.dir, commit, format, prefix };
        // The caller's share (a person with many projects has one), and the repository owner's besides.
        const owner = repo.name.split('/')[0] ?? '';
        const caller = callerOf(request, owner);
        const rangeHeader = request.method === 'GET' && ifRangeHolds(request, etag) ? request.headers.range : undefined;
        const spooled =
          request.method === 'HEAD' || rangeHeader !== undefined
            ? await deps.archives.acquire(tag, (out) => archiveRuns(deps).run(caller, () => writeArchive(archive, out), owner))
            : await deps.archives.open(tag);
        if (spooled) return sendSpooled(reply, spooled, request.method === 'HEAD', rangeHeader);
        // Larger than the spool takes: the whole archive, streamed (a Range is ignored, as RFC 9110 allows).
        if (request.method === 'HEAD') return reply.send();
        return streamArchive(request, reply, archive, archiveRuns(deps).take(caller, owner));
      }),
  });
}

/** Whether `If-None-Match` lists `etag` (or `*`); a weak validator matches as well (weak comparison, RFC 9110). */
function hasTag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((t) => {
    const value = t.trim().replace(/^W\//, '');
    return value === etag || value === '*';
  });
}

/** `If-Range` absent, or naming this very archive: otherwise the client's partial copy is stale, send it all. */
function ifRangeHolds(request: FastifyRequest, etag: string): boolean {
  const ifRange = request.headers['if-range'];
  return ifRange === undefined || (typeof ifRange === 'string' && ifRange.trim() === etag);
}

function sendSpooled(reply: FastifyReply, spooled: SpooledArchive, head: boolean, rangeHeader: string | undefined): FastifyReply {
  const { handle, size } = spooled;
  const range = byteRange(rangeHeader, size);
  if (head) {
    void handle.close();
    return reply.header('content-length', String(size)).send();
  }
  if (range.kind === 'unsatisfiable') {
    void handle.close();
    return reply
      .code(416)
      .header('content-range', `bytes */${size}`)
      .type('application/json')
      .removeHeader('content-disposition')
      .send({ error: 'range_not_satisfiable', message: `The archive has ${size} bytes.`, retryable: false });
  }
  if (range.kind === 'partial') {
    reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
      .header('content-length', String(range.end - range.start + 1));
    return reply.send(handle.createReadStream({ start: range.start, end: range.end }));
  }
  return reply.header('content-length', String(size)).send(handle.createReadStream());
}

/**
 * Streams `git archive` to the client. Resolves when git is done, so the repository stays held meanwhile; a client
 * gone mid-way kills git. Once the headers are out a failure can only cut the response short, which the client sees
 * as a broken transfer.
 */
async function streamArchive(request: FastifyRequest, reply: FastifyReply, archive: ArchiveRequest, release: () => void): Promise<FastifyReply> {
  const body = new PassThrough();
  const stop = new AbortController();
  reply.raw.once('close', () => stop.abort());
  void reply.send(body);
  try {
    await writeArchive(archive, body, stop.signal);
    body.end();
  } catch (error) {
    if (!stop.signal.aborted) request.log.error({ err: error }, 'git archive failed mid-response');
    body.destroy(error as Error);
  } finally {
    release();
  }
  return reply;
}

/** `git archive` runs at once: each takes a core while it compresses, so one tenant's many cannot take them all. */
const archiveRuns = runsPer<RepoApiDependencies>('archives', 'archives being made', { perOwner: 2, total: 4, retryAfterSeconds: 5 });
