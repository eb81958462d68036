// Git smart HTTP under `/{owner}/{repo}` (gitprotocol-http): the ref advertisement, upload-pack (clone and
// fetch, protocol v0 and v2) and receive-pack (push). A `.git` suffix on the repository segment is accepted,
// as every git host does.
import { abortOnClose, callerOf } from '../request-turn.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PassThrough, pipeline, Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { RepoStore } from '../../src/repo-store/index.ts';
import { parseUrlRepoPath } from '../../src/repo-store/index.ts';
import { receivePackAdvertisement } from '../plumbing/receive-pack/advertisement.ts';
import { receivePack } from '../plumbing/receive-pack/receive-pack.ts';
import type { RepoCache } from '../plumbing/repo-cache.ts';
import { gitProtocol, uploadPack, uploadPackAdvertisement } from '../plumbing/upload-pack.ts';
import { receiveFetchRequest } from '../plumbing/fetch-request.ts';
import { PublicError } from '../../src/errors.ts';
import { GitCommandError } from '../../src/git/run-git.ts';
import { sendError } from '../errors.ts';
import type { ServiceMetrics } from '../metrics.ts';
import { PushResponse } from './push-response.ts';
import type { SpoolBudget } from '../plumbing/spool-budget.ts';
import type { StorageQuota } from '../plumbing/storage-quota.ts';
import { principalOf, requireScope } from '../auth/index.ts';
import type { FetchSlots } from '../fetch-slots.ts';

export interface GitHttpDependencies {
  readonly repos: RepoStore;
  readonly cache: RepoCache;
  readonly metrics: ServiceMetrics;
  /** The largest pack one push may send. */
  readonly maxPackBytes: number;
  /** The largest (decompressed) upload-pack request: wants, haves and ref prefixes. */
  readonly maxFetchRequestBytes: number;
  /** How long a push may run silent before its answer starts with side-band keepalives. */
  readonly keepaliveMs: number;
  /** What pushes, LFS uploads and URL imports being received may hold on the disk, per owner and in all. */
  readonly spool: SpoolBudget;
  /** What each repository may store: a push whose pack would pass it is refused. */
  readonly quota?: StorageQuota;
  /** Fetches running at once, per caller, per owner and in all: one past its share waits its turn. */
  readonly fetches: FetchSlots;
}

interface RepoParams {
  owner: string;
  repo: string;
}

const UPLOAD_PACK_REQUEST = 'application/x-git-upload-pack-request';
const RECEIVE_PACK_REQUEST = 'application/x-git-receive-pack-request';

/**
 * Refuses a request body that is not of git's `type` before it is read: git always sends it, and a body a browser
 * may send cross-site without asking first (`text/plain`, a form) must never reach upload-pack or receive-pack.
 */
function requireGitBody(type: string) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const given = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (given !== type) return sendError(reply, 415, 'unsupported_media_type', `This route takes ${type} bodies, as git sends them.`);
    // git compresses fetch negotiations, never a push: a compressed pack would be inflated here at no cost to the
    // sender (zeros deflate 1000:1; a 510 KiB body cost 3.2 s of CPU, review-177 F7).
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (type === RECEIVE_PACK_REQUEST && encoding !== undefined && encoding !== 'identity') {
      return sendError(reply, 415, 'unsupported_media_type', `A push's body is taken as git sends it, not compressed (Content-Encoding: ${encoding.slice(0, 40)}).`);
    }
  };
}

export function gitHttpRoutes(app: FastifyInstance, deps: GitHttpDependencies): void {
  app.register(async (scope) => {
    // git bodies are streams (a push's pack can be large): handed to the handler unread.
    scope.addContentTypeParser([UPLOAD_PACK_REQUEST, RECEIVE_PACK_REQUEST], (_request, payload, done) => done(null, payload));

    scope.get<{ Params: RepoParams; Querystring: { service?: string } }>('/:owner/:repo/info/refs', { config: { scope: 'read', drains: true } }, async (request, reply) => {
      const repo = repoOf(request.params);
      const service = request.query.service;
      noCache(reply);
      if (service === 'git-receive-pack') {
        requireScope(request, 'write');
        // Fresh: a push computes its old values from this; a stale one would be refused as "fetch first".
        const head = await deps.repos.readHead(repo, { fresh: true });
        return reply.type('application/x-git-receive-pack-advertisement').send(receivePackAdvertisement(head.refs, head.objectFormat));
      }
      if (service !== 'git-upload-pack') {
        return sendError(reply, 403, 'smart_http_required', 'Only the smart HTTP protocol is served: use git 1.6.6 or later.');
      }
      const release = deps.cache.hold(repo);
      try {
        const { dir } = await deps.cache.sync(repo);
        const body = await uploadPackAdvertisement(dir, gitProtocol(request.headers['git-protocol']));
        return reply.type('application/x-git-upload-pack-advertisement').send(body);
      } finally {
        release();
      }
    });

    scope.post<{ Params: RepoParams }>('/:owner/:repo/git-upload-pack', { config: { scope: 'read', drains: true }, onRequest: requireGitBody(UPLOAD_PACK_REQUEST) }, async (request, reply) => {
      const repo = repoOf(request.params);
      const abort = abortOnClose(request, reply);
      const owner = repo.slice(0, repo.indexOf('/'));
      const caller = callerOf(request, owner);
      // The whole request first, so that a client sending it slowly waits without holding a turn (fetch-request.ts).
      const spool = deps.spool.open(caller);
      const received = await receiveFetchRequest(requestBody(request, deps.maxFetchRequestBytes), { tmpDir: deps.cache.tmpDir, spool }).catch((error: unknown) => {
        spool.release();
        if (abort.signal.aborted || reply.raw.destroyed) return undefined; // the client left while sending it: nobody to answer
        throw error;
      });
      const done = () => void received?.dispose().finally(() => spool.release());
      // Its turn among the fetches running (pack-objects takes a core): the caller's share, the owner's, the instance's.
      const release =
        received &&
        (await deps.fetches.take({ caller, owner }, abort.signal).catch((error: unknown) => {
          done();
          if (abort.signal.aborted) return undefined; // the client left while it waited: nobody to answer
          throw error;
        }));
      // Gone before this handler ran (its close fired before anyone listened), while it sent its request or as its turn came.
      if (!received || !release || abort.signal.aborted || reply.raw.destroyed) {
        release?.();
        done();
        return reply;
      }
      // Held until the answer has streamed out (or the client left): eviction must not pull the copy away. One
      // listener for the three: with the plugins' and the answer's stream's own, separate ones passed the ten Node
      // warns at, a line on stderr for every clone.
      const unhold = deps.cache.hold(repo);
      reply.raw.once('close', () => {
        release();
        done();
        unhold();
      });
      const { dir } = await deps.cache.sync(repo);
      const body = received.body;
      const out = new PassThrough();
      noCache(reply);
      reply.type('application/x-git-upload-pack-result').send(out);
      uploadPack(dir, gitProtocol(request.headers['git-protocol']), body, out, abort.signal).then(
        () => out.end(),
        (error: unknown) => {
          // The client left (while its turn or the copy's sync was awaited, or mid-answer): nobody to tell.
          if (abort.signal.aborted) return void out.destroy();
          const fault = requestFault(body, error);
          if (!fault) request.log.warn({ err: error, repo }, 'upload-pack failed');
          out.destroy(fault ?? (error instanceof Error ? error : new Error(String(error))));
        },
      );
      return reply;
    });

    scope.post<{ Params: RepoParams }>('/:owner/:repo/git-receive-pack', { config: { scope: 'write', drains: true }, onRequest: requireGitBody(RECEIVE_PACK_REQUEST) }, async (request, reply) => {
      const repo = repoOf(request.params);
      const abort = abortOnClose(request, reply);
      reply.raw.once('close', deps.cache.hold(repo));
      const response = new PushResponse(reply, deps.keepaliveMs);
      // The caller's share (one person's across their projects), the repository's owner's without a principal.
      const spool = deps.spool.open(callerOf(request, request.params.owner));
      try {
        const outcome = await receivePack(
          {
            repo,
            body: requestBody(request, Number.POSITIVE_INFINITY),
            pusher: principalOf(request).name,
            requestId: request.id,
            signal: abort.signal,
            onNegotiated: ({ sideband }) => sideband && response.sidebandNegotiated(),
          },
          {
            repos: deps.repos,
            cache: deps.cache,
            maxPackBytes: deps.maxPackBytes,
            spool,
            ...(deps.quota ? { quota: deps.quota } : {}),
            onRefused: (reason) => deps.metrics.pushRefused.inc({ reason }),
            onLocalApplyFailed: (error) => {
              deps.metrics.publishLocalApplyFailed.inc();
              request.log.warn({ err: error, repo }, 'published pack not moved into the cache; the next sync downloads it');
            },
          },
        );
        if (outcome.seq !== undefined) request.log.info({ repo, seq: outcome.seq }, 'push published');
        return response.finish(outcome.body);
      } catch (error) {
        if (!response.streaming) throw error;
        request.log.error({ err: error, repo }, 'push failed after its answer started');
        return response.failStreaming(error);
      } finally {
        spool.release();
      }
    });
  });
}

/** `owner/repo` from the path (`.git` suffix accepted); an invalid name is a 400 naming the rule. */
function repoOf(params: RepoParams): string {
  return parseUrlRepoPath(params.owner, params.repo).full;
}

function noCache(reply: FastifyReply): void {
  reply.header('cache-control', 'no-cache, max-age=0, must-revalidate');
}

/** The request body, gunzipped when the client compressed it (git does for large fetch negotiations). */
function requestBody(request: FastifyRequest, maxBytes: number): Readable {
  // Only git's content types reach here (requireGitBody), and their parser hands the body over unread.
  const raw = request.body as Readable;
  const stages: NodeJS.ReadWriteStream[] = [];
  const encoding = request.headers['content-encoding'];
  if (encoding === 'gzip' || encoding === 'x-gzip') stages.push(createGunzip());
  if (Number.isFinite(maxBytes)) {
    let seen = 0;
    stages.push(
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          seen += chunk.length;
          done(seen > maxBytes ? Object.assign(new PublicError(413, `The request body is larger than ${maxBytes} bytes.`), { code: 'too_large' }) : null, chunk);
        },
      }),
    );
  }
  if (stages.length === 0) return raw;
  // pipeline, not pipe: a corrupt gzip stream or an over-long body must fail the consumer, not stall it. Its
  // failure reaches the consumer as the client's (a 400), not as the zlib error it is (which would answer 500).
  const body = new PassThrough();
  // The consumer meets the failure as it reads; one that fails after its consumer ended (git upload-pack done with
  // its input early) has nobody to tell, and must not be an unhandled error of the process.
  body.on('error', () => {});
  const fail = (error: Error) => body.destroy(error instanceof PublicError ? error : Object.assign(new PublicError(400, 'The request body is not valid gzip.'), { code: 'invalid_git_request' }));
  const decoded = pipeline([raw, ...stages], (error) => error && fail(error)) as unknown as Readable;
  // A gzip stream cut short fails only as it ends, which can be after the pipeline has finished.
  decoded.on('error', fail).pipe(body);
  return body;
}

/**
 * The client's fault in a failed upload-pack, answered 400 while nothing was sent yet: a body that failed to decode
 * (`requestBody`), or one git could not read as a request (its `protocol error`).
 */
function requestFault(body: Readable, error: unknown): PublicError | undefined {
  if (body.errored instanceof PublicError) return body.errored;
  if (!(error instanceof GitCommandError)) return undefined;
  const complaint = /^fatal: (protocol error: .*|.*expected flush.*|.*unknown capability.*)$/m.exec(error.stderr)?.[1];
  return complaint === undefined ? undefined : Object.assign(new PublicError(400, `The request is not one git-upload-pack can read: ${complaint.slice(0, 200)}`), { code: 'invalid_git_request' });
}
