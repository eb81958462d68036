// JSON write bodies (a commit of up to 16 MiB of files, an import's pins) are read whole before their route runs,
// so each one in flight holds its bytes, and several times that once parsed, in the process every tenant shares.
// A tenant opening many and sending them slowly grew cw-git past its pod's memory limit (a hostile review: 45
// slow commit bodies, 1.2 GiB). So the large ones are counted before a byte is read, per sender and in all, and
// must arrive within a deadline.
import { finished, PassThrough, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { KeyedSlots } from '../src/collections/keyed-slots.ts';
import { OwnerShareError } from './owner-share-error.ts';
import { formatBytes } from './commands/format.ts';

export interface LargeBodyBounds {
  /** Bytes of large bodies being read at once, in all. */
  readonly totalBytes: number;
  /** Bytes of one sender's large bodies being read at once (the token's subject, or the user a trusted proxy names). */
  readonly perOwnerBytes: number;
  /** How long a large body may take to arrive. */
  readonly deadlineMs: number;
}

/** 96 MiB in all (three of the largest commit bodies: with their parse, well inside the 768 MiB heap), 32 MiB a sender, 60 s. */
export const DEFAULT_LARGE_BODY_BOUNDS: LargeBodyBounds = Object.freeze({ totalBytes: 96 << 20, perOwnerBytes: 32 << 20, deadlineMs: 60_000 });

/** Bodies up to this many bytes are not counted: the server's default body limit, which every route may take. */
const SMALL = 64 << 10;

/** 429 for the sender's own bodies (retry once one is read), 503 for the instance's. */
export class BodiesBusyError extends OwnerShareError<'owner_bodies_limit' | 'bodies_busy'> {
  override readonly name = 'BodiesBusyError';
  constructor(scope: 'owner' | 'instance', message: string) {
    super(scope, { owner: 'owner_bodies_limit', instance: 'bodies_busy' }, message, 5);
  }
}

/**
 * Counts each buffered body larger than 64 KiB (by its `Content-Length`, or the route's body limit when it has
 * none) before it is read, and gives the count back when the answer is sent or the client goes. A body that has
 * not arrived within the deadline is answered 408. Routes that stream their body (pushes, LFS uploads) keep the
 * default limit and are counted by the spool budget instead.
 */
export function largeBodies(app: FastifyInstance, bounds: LargeBodyBounds = DEFAULT_LARGE_BODY_BOUNDS): void {
  const slots = new KeyedSlots({ total: bounds.totalBytes, perKey: bounds.perOwnerBytes });
  app.addHook('preParsing', (request, reply, payload, done) => {
    // Routes that stream their body (pushes, LFS uploads) keep the server's limit: the spool budget counts them.
    if ((request.routeOptions.bodyLimit ?? SMALL) <= SMALL) return done(null, payload);
    const weight = weightOf(request);
    if (weight <= SMALL) return done(null, payload);
    // Counted against who sends it, not the owner its URL names: anyone may name another owner's repository.
    const sender = request.gitPrincipal?.name ?? '';
    const slot = slots.take(sender, weight);
    if (!('release' in slot)) {
      const error =
        slot.refused === 'key'
          ? new BodiesBusyError('owner', `Your requests being read hold ${formatBytes(slot.held)} of the ${formatBytes(bounds.perOwnerBytes)} they may at once; retry when one has been answered.`)
          : new BodiesBusyError('instance', `This server is reading as many large request bodies as it holds at once (${formatBytes(bounds.totalBytes)}); retry shortly.`);
      return done(error);
    }
    // Given back however the answer ends, even when the client was gone before this hook ran.
    finished(reply.raw, () => slot.release());
    done(null, withDeadline(payload, bounds.deadlineMs));
  });
}

/** What the body may weigh: its announced length, else as much as the route takes. */
function weightOf(request: FastifyRequest): number {
  const limit = request.routeOptions.bodyLimit ?? SMALL;
  const declared = Number(request.headers['content-length']);
  return Number.isFinite(declared) && declared >= 0 ? Math.min(declared, limit + 1) : limit;
}

/** The body as it arrives, failing with a 408 once `ms` have passed before its end. */
function withDeadline(payload: Readable, ms: number): Readable {
  const out = new PassThrough();
  const timer = setTimeout(() => {
    const error = Object.assign(new Error(`The request body did not arrive within ${ms / 1000} s.`), { statusCode: 408 });
    payload.unpipe(out);
    out.destroy(error);
  }, ms);
  timer.unref();
  let ended = false;
  payload.once('end', () => {
    ended = true;
    clearTimeout(timer);
  });
  // A client gone mid-body: its end never comes, and the reader must hear so (as Node's own reader does).
  payload.once('close', () => {
    clearTimeout(timer);
    if (!ended) out.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
  });
  // The reader may have stopped listening (the answer sent early): its error is then nobody's to handle.
  out.on('error', () => undefined);
  return payload.pipe(out);
}
