// The turns of the JSON API writes that run git (commits, merges, ref and tag writes, initialize, import): a few at
// once per caller, per owner and on the instance, as fetches and the costly reads are, and stopped when their client
// leaves. Unbounded, eight merges of a history made costly to merge (rename detection over 2,000 modified-and-renamed
// files) held both cores for 34 s, each running to its end after its client had gone (found in review).
import type { FastifyReply, FastifyRequest } from 'fastify';
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
 * Runs `write` once the request has its turn among `deps.writes` (its caller's share, its owner's and the
 * instance's), waited for unless its client leaves first; the turn is given back when `write` ends. `write` gets the
 * signal that aborts when the client leaves: its git processes are killed then, and nothing is published after it.
 * A write whose client left ends as a client gone away (an info line, not a logged 500: nobody reads its answer).
 */
export function writeInTurn<T>(deps: RepoApiDependencies, request: FastifyRequest, reply: FastifyReply, write: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return inTurn(deps.writes, request, reply, (request.params as RepoParams).owner, write);
}
