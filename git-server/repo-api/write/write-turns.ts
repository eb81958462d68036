// The turns of the JSON API writes that run git (commits, merges, ref and tag writes, initialize, import): a few at
// once per caller, per owner and on the instance, as fetches and the costly reads are, and stopped when their client
// leaves. Unbounded, eight merges of a history made costly to merge (rename detection over 2,000 modified-and-renamed
// files) held both cores for 34 s, each running to its end after its client had gone (found in review). A write whose
// client stays is cut at its deadline (`api.write_deadline`) before it publishes, so none holds its turn for ever.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PublicError } from '../../../src/errors.ts';
import { FetchSlots, type FetchBounds, type SlotKind } from '../../fetch-slots.ts';
import { inTurn } from '../../request-turn.ts';
import type { RepoApiDependencies } from '../dependencies.ts';
import type { RepoParams } from '../repo-read.ts';

/**
 * Fewer than the reads: a write's git work (a merge's rename detection, a commit's trees, an import's copy) costs
 * more than most reads, and a write waits its turn (up to 30 s) rather than failing, so a client sending its writes
 * in parallel gets slower, not refused.
 */
export const DEFAULT_WRITE_BOUNDS: FetchBounds = Object.freeze({ perCaller: 2, perOwner: 4, total: 8, waitMs: 30_000 });
const WRITES: SlotKind = { what: 'writes', codes: { owner: 'owner_writes_limit', instance: 'writes_busy' } };

/** The write turns of one instance. */
export function writeTurns(bounds: FetchBounds = DEFAULT_WRITE_BOUNDS): FetchSlots {
  return new FetchSlots(bounds, undefined, WRITES);
}

/**
 * How long a write's git work may run once it has its turn (`api.write_deadline`): a merge's rename detection, a
 * commit's trees, an initialize's or import's copy, and the pack. Generous, as an import's copy of up to 1 GiB runs
 * in it; the turns bound how many writes run, this bounds how long one holds its turn and its core.
 */
export const DEFAULT_WRITE_DEADLINE_MS = 5 * 60_000;
/** When a write cut at its deadline may come back: its turn is free again at once, but the same work meets the same bound. */
const DEADLINE_RETRY_AFTER_SECONDS = 30;

/** 503 `write_deadline`: the write's git work ran past `api.write_deadline` and was stopped before it published anything. */
export class WriteDeadlineError extends PublicError {
  override readonly name = 'WriteDeadlineError';
  readonly code = 'write_deadline';
  constructor(ms: number) {
    super(
      503,
      `The write ran longer than ${Math.round(ms / 1000)} s (api.write_deadline) and was stopped before it published anything: nothing was written. Retry later, or split it into smaller writes.`,
      { 'retry-after': String(DEADLINE_RETRY_AFTER_SECONDS) },
    );
  }
}

/** The deadline timer of each write's signal, for `publishing` to stop. */
const deadlines = new WeakMap<AbortSignal, NodeJS.Timeout>();

/**
 * Called by the publish (publish-write.ts) as it begins its compare-and-swap: the write's deadline stops there, so
 * a write that starts publishing runs to its answer and is answered with it (published or rejected), never 503
 * `write_deadline`. A write the deadline cut has therefore published nothing.
 */
export function publishing(signal: AbortSignal | undefined): void {
  if (signal) clearTimeout(deadlines.get(signal));
}

/**
 * Runs `write` once the request has its turn among `deps.writes` (its caller's share, its owner's and the
 * instance's), waited for unless its client leaves first; the turn is given back when `write` ends. `write` gets the
 * signal that aborts when the client leaves or when the write has run `deps.writeDeadlineMs` in its turn: its git
 * processes are killed then, and nothing is published after it. A write whose client left ends as a client gone away
 * (an info line, not a logged 500: nobody reads its answer); one its deadline cut before it began publishing answers
 * 503 `write_deadline` with `Retry-After`.
 */
export function writeInTurn<T>(deps: RepoApiDependencies, request: FastifyRequest, reply: FastifyReply, write: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ms = deps.writeDeadlineMs ?? DEFAULT_WRITE_DEADLINE_MS;
  return inTurn(deps.writes, request, reply, (request.params as RepoParams).owner, async (client) => {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new WriteDeadlineError(ms)), ms);
    const signal = AbortSignal.any([client, deadline.signal]);
    deadlines.set(signal, timer);
    try {
      return await write(signal);
    } catch (error) {
      // Whatever the cut git work threw (a killed process, the signal's own reason): the deadline is the answer.
      if (deadline.signal.aborted && !client.aborted) throw deadline.signal.reason;
      throw error;
    } finally {
      clearTimeout(timer);
    }
  });
}
