import type { FastifyRequest } from 'fastify';
import { PassThrough } from 'node:stream';
import type { KeyedSlots } from '../../src/collections/keyed-slots.ts';
import { PublicError, UnavailableError } from '../../src/errors.ts';
import { BoundedEventWriter } from '../../src/event-stream.ts';
import { checkStillAllowed, principalOf } from '../plugins/auth.ts';

const KEEPALIVE_MS = 15_000;
const RETRY_AFTER_SECONDS = 10;
const RECHECK_MS = 10_000;

/** A followed log's event stream: `out` is the answer's body; `signal` aborts once it closes. */
export interface LogStream {
  readonly out: PassThrough;
  readonly events: BoundedEventWriter;
  readonly signal: AbortSignal;
}

/**
 * Takes one of `slots` for the caller (429 past their share, 503 past the process's) and opens an event stream
 * that gives it back when it closes: at its end, or when the client goes (Fastify destroys the body then).
 * `what` names the streams in the refusal ("log streams", "build log streams"). The caller is checked again every
 * `recheckMs` and the stream ends once it is no longer allowed (its token revoked or expired, its membership of
 * the project gone): a reconnect then meets the 401 or 403.
 */
export function openLogStream(slots: KeyedSlots, request: FastifyRequest, what: string, recheckMs = RECHECK_MS): LogStream {
  const slot = slots.take(principalOf(request).userId);
  if (!('release' in slot)) {
    if (slot.refused === 'total') throw new UnavailableError(`The API follows as many ${what} as it holds at once; retry shortly.`, RETRY_AFTER_SECONDS);
    throw new PublicError(429, `You follow ${slot.held} ${what} at once, the most a user may; close one (another terminal or tab) and retry.`, {
      'retry-after': String(RETRY_AFTER_SECONDS),
    });
  }
  const abort = new AbortController();
  const out = new PassThrough();
  const events = new BoundedEventWriter(out, KEEPALIVE_MS);
  const recheck = setInterval(() => {
    checkStillAllowed(request).catch((err: unknown) => {
      request.log.info({ reason: err instanceof Error ? err.message : String(err) }, 'log stream ended: its caller is no longer allowed');
      abort.abort();
      out.end();
    });
  }, recheckMs);
  recheck.unref();
  out.once('close', () => {
    clearInterval(recheck);
    abort.abort();
    slot.release();
  });
  return { out, events, signal: abort.signal };
}
