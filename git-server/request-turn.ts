// A request's place in the shared bounds of cw-git: whom it counts for, and its turn among slots while its client
// is still there.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FetchSlots } from './fetch-slots.ts';

/** Whom a request to `owner`'s repositories counts for: its principal (one person's across their projects), else the owner. */
export function callerOf(request: FastifyRequest, owner: string): string {
  return request.gitPrincipal?.name ?? owner;
}

/** Aborts when the client goes away mid-request (not when the answer is done). */
export function abortOnClose(request: FastifyRequest, reply: FastifyReply): AbortController {
  const controller = new AbortController();
  // Gone already (while an earlier step of its handler awaited): 'close' has fired and will not again.
  if (reply.raw.destroyed && !reply.raw.writableFinished) controller.abort();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  request.raw.once('aborted', () => controller.abort());
  return controller;
}

/**
 * The request's turn among `slots` (its caller's share, `owner`'s and the instance's), waited for unless its client
 * leaves first (`signal`, by default its `abortOnClose`): then it ends as a client gone away. Resolves to what gives
 * the turn back.
 */
export async function takeTurn(slots: FetchSlots, request: FastifyRequest, reply: FastifyReply, owner: string, signal = abortOnClose(request, reply).signal): Promise<() => void> {
  try {
    return await slots.take({ caller: callerOf(request, owner), owner }, signal);
  } catch (error) {
    throw signal.aborted ? clientGone(error) : error;
  }
}

/**
 * Runs `work` once the request has its turn among `slots`, and gives the turn back when it ends. `work` gets the
 * signal that aborts when the client leaves (its git processes and lookups stop then); whatever it throws after
 * that ends the request as a client gone away.
 */
export async function inTurn<T>(slots: FetchSlots, request: FastifyRequest, reply: FastifyReply, owner: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { signal } = abortOnClose(request, reply);
  const release = await takeTurn(slots, request, reply, owner, signal);
  try {
    return await work(signal);
  } catch (error) {
    throw signal.aborted ? clientGone(error) : error;
  } finally {
    release();
  }
}

/**
 * What a request whose client left (its `abortOnClose` signal aborted) ends with, whatever its work threw: the error
 * handler takes it for a client gone away (an info line), not a server error (a logged 500 nobody reads).
 */
export function clientGone(cause: unknown): Error {
  return Object.assign(new Error('aborted'), { code: 'ECONNABORTED', cause });
}
