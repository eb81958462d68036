// The links a batch answer hands out: absolute URLs git-lfs calls next, carrying the caller's own credentials.
import type { FastifyRequest } from 'fastify';
import type { RepoPath } from '../../src/repo-store/index.ts';
import { principalOf } from '../auth/index.ts';

/** How long an action stays usable, at most (an expiring token shortens it). */
export const ACTION_TTL_SECONDS = 3600;

export interface LfsAction {
  href: string;
  header?: Record<string, string>;
  expires_in: number;
}

/** Builds the actions of one batch request. */
export interface ActionLinks {
  download(oid: string): LfsAction;
  upload(oid: string, size: number): LfsAction;
  verify(): LfsAction;
}

/**
 * Links under `publicUrl` when configured, else under the scheme and Host of the request (which is what the
 * client reached us by). Every action repeats the request's `Authorization` header so git-lfs sends it to
 * the object routes too (they authenticate like every route), except behind a trusted proxy, whose header
 * is its own; nothing is signed into the URL itself.
 */
export function actionLinks(request: FastifyRequest, repo: RepoPath, publicUrl: string | undefined, now: number = Date.now()): ActionLinks {
  const base = `${publicUrl ?? `${request.protocol}://${request.host}`}/${repo.owner}/${repo.name}/info/lfs`;
  const principal = principalOf(request);
  // Behind a trusted proxy the header is the proxy's own credential: never hand it to the end user. The
  // proxy authenticates the follow-up requests as it did this one.
  const authorization = principal.forwarded ? undefined : request.headers.authorization;
  const expiresAt = principal.expiresAt;
  const ttl = expiresAt === undefined ? ACTION_TTL_SECONDS : Math.max(0, Math.min(ACTION_TTL_SECONDS, Math.floor((expiresAt - now) / 1000)));
  const action = (href: string): LfsAction => ({ href, ...(authorization ? { header: { Authorization: authorization } } : {}), expires_in: ttl });
  return {
    download: (oid) => action(`${base}/objects/${oid}`),
    // The expected size rides along, so the upload itself can refuse a body that does not match the batch.
    upload: (oid, size) => action(`${base}/objects/${oid}?size=${size}`),
    verify: () => action(`${base}/verify`),
  };
}
