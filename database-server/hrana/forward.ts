// Requests for a database another replica owns, sent on to it (HTTP and WebSocket upgrades alike), so one
// database URL works whichever replica the Service picks. A forwarded request carries a header, and a replica
// never forwards a request it was forwarded: two replicas that disagree for a moment answer DATABASE_MOVING
// (retryable) instead of sending it back and forth.
import { bearerValue } from '../../src/auth/bearer-value.ts';
import { isUnsentRequest } from '../../src/network-errors.ts';
import { Agent, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export const FORWARDED_HEADER = 'x-cw-db-forwarded';

/** Where a database's requests go: served here, sent on to the owner, or nowhere right now (a takeover under way). */
export type RouteDecision = { readonly kind: 'local' } | { readonly kind: 'forward'; readonly url: string; readonly tenant?: string } | { readonly kind: 'unavailable' };

/**
 * Decides for a database named in the path, or else by the bearer token (the client's URL form without a trailing
 * slash names no database); `forwarded`: the request came from another replica.
 */
export type Router = (pathTenant: string | null, token: string | undefined, forwarded: boolean) => Promise<RouteDecision>;

/** The bearer token of a request, if any. */
export function bearerToken(request: IncomingMessage): string | undefined {
  return bearerValue(request.headers.authorization);
}

export const MOVING = { message: 'The database is moving to another replica; retry in a moment', code: 'DATABASE_MOVING' };

const agent = new Agent({ keepAlive: true });

/** Whether the request was forwarded by another replica. */
export function wasForwarded(request: IncomingMessage): boolean {
  return request.headers[FORWARDED_HEADER] !== undefined;
}

/** The owner failed once it had the request: as a shard dying while running one, whether it was applied is not known. */
const LOST = {
  message: 'The replica that owns the database failed while running this request: what it had not committed was rolled back, and whether its last commit went through is not known',
  code: 'DATABASE_RESTARTING',
};

/**
 * The request's path and query on `base`, and nothing else of its target: a request-target in absolute form
 * (`POST http://10.0.0.7/…`) or scheme-relative (`//10.0.0.7/…`) resolved against `base` would send the request,
 * and read back the answer, from wherever the client chose.
 */
export function onOwner(requestUrl: string | undefined, base: string): URL {
  const asked = new URL(requestUrl ?? '/', 'http://localhost');
  const target = new URL(base);
  target.pathname = asked.pathname;
  target.search = asked.search;
  return target;
}

/** How often a forwarded request still without an answer asks whether `base` still owns its database. */
export const OWNER_RECHECK_MS = 2_000;

/**
 * Sends the request to the same path on `base` and streams the answer back. An owner that cannot be reached answers
 * 503 DATABASE_MOVING (nothing ran: retry); one lost after it had the request, 503 DATABASE_RESTARTING (it may have).
 * `stillOwner`, asked every {@link OWNER_RECHECK_MS} until the answer begins, tells an owner that stopped answering
 * (paused, its node cut off: its kernel may still hold the connection open) and was taken over meanwhile: the request
 * is given up as lost rather than waited on for ever (review-164 F9).
 */
export function forwardRequest(request: IncomingMessage, response: ServerResponse, base: string, stillOwner?: () => Promise<boolean>, recheckMs = OWNER_RECHECK_MS): Promise<void> {
  return new Promise((resolve) => {
    const target = onOwner(request.url, base);
    let recheck: NodeJS.Timeout | undefined;
    let answered = false;
    const upstream = httpRequest(target, { method: request.method, agent, headers: { ...request.headers, host: target.host, [FORWARDED_HEADER]: '1' } }, (answer) => {
      answered = true;
      clearInterval(recheck);
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
      answer.once('end', () => resolve());
      answer.once('error', () => {
        response.destroy();
        resolve();
      });
    });
    if (stillOwner) {
      let asking = false;
      recheck = setInterval(() => {
        // One question at a time (the router may read the bucket, slowly when it fails), and an answer begun by then
        // is the owner's to finish: only a request still without one is given up.
        if (asking) return;
        asking = true;
        stillOwner().then(
          (owns) => {
            asking = false;
            if (!owns && !answered) upstream.destroy(new Error(`${base} no longer owns the database`));
          },
          () => {
            asking = false;
          },
        );
      }, recheckMs);
      recheck.unref();
    }
    upstream.once('error', (error) => {
      clearInterval(recheck);
      if (response.headersSent) response.destroy();
      else {
        const unsent = isUnsentRequest(error);
        const body = JSON.stringify(unsent ? MOVING : LOST);
        response.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(unsent ? { 'retry-after': '1' } : {}) });
        response.end(body);
      }
      resolve();
    });
    request.pipe(upstream);
  });
}

/** Opens the same WebSocket on `base` and splices the two sockets together; a refusal is relayed as it came. */
export function forwardUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, base: string): void {
  const target = onOwner(request.url, base);
  const upstream = httpRequest(target, { method: 'GET', headers: { ...request.headers, host: target.host, [FORWARDED_HEADER]: '1' } });
  upstream.once('upgrade', (answer, upstreamSocket, upstreamHead) => {
    socket.write(`HTTP/1.1 101 Switching Protocols\r\n${rawHeaders(answer)}\r\n`);
    if (upstreamHead.length > 0) socket.write(upstreamHead);
    if (head.length > 0) upstreamSocket.write(head);
    upstreamSocket.pipe(socket).pipe(upstreamSocket);
    const end = () => {
      socket.destroy();
      upstreamSocket.destroy();
    };
    socket.once('error', end).once('close', end);
    upstreamSocket.once('error', end).once('close', end);
  });
  upstream.once('response', (answer) => {
    socket.write(`HTTP/1.1 ${answer.statusCode ?? 502} ${answer.statusMessage ?? ''}\r\n${rawHeaders(answer)}\r\n`);
    answer.pipe(socket);
  });
  upstream.once('error', () => {
    const body = JSON.stringify(MOVING);
    socket.end(`HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  upstream.end();
}

function rawHeaders(answer: IncomingMessage): string {
  let text = '';
  for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) text += `${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}\r\n`;
  return text;
}
