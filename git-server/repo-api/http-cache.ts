import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * For answers addressed by a full object id: they can never change. `private`: every repository needs a token to
 * read, and a shared cache must not hand one reader's answer to another (RFC 9111 §3.5: `public` would let it).
 */
export function immutable(reply: FastifyReply): void {
  reply.header('cache-control', 'private, max-age=31536000, immutable');
}

/**
 * For answers addressed by a ref (or anything that may move): a strong ETag of what they were computed from (the
 * commit id, say, plus whatever else shapes the answer) and revalidation on every use. Answers 304 and returns
 * true when the client's `If-None-Match` already has it; the caller then sends nothing else.
 */
export function revalidated(request: FastifyRequest, reply: FastifyReply, tag: string): boolean {
  const etag = `"${tag}"`;
  reply.header('etag', etag).header('cache-control', 'no-cache');
  const given = request.headers['if-none-match'];
  if (given === undefined) return false;
  const matches = given
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === etag || t === '*');
  if (matches) void reply.code(304).send();
  return matches;
}
