import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SyncedRepo } from '../plumbing/repo-cache.ts';
import { parseUrlRepoPath } from '../../src/repo-store/index.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import { FetchSlots, type FetchBounds, type SlotKind } from '../fetch-slots.ts';
import { takeTurn } from '../request-turn.ts';

/** The route parameters every JSON API route has. */
export interface RepoParams {
  owner: string;
  repo: string;
}

/**
 * Runs `read` on the repository of the request's `/{owner}/{repo}`: its cached copy is first brought up to the
 * bucket's head (one conditional GET, as a fetch does, so a push through another instance is seen at once), and
 * held while `read` runs so eviction cannot pull it away. Throws `RepoNotFoundError` (404) for an unknown repository.
 */
export async function readRepo<T>(deps: RepoApiDependencies, request: FastifyRequest, read: (repo: SyncedRepo & { name: string }) => Promise<T>): Promise<T> {
  const { owner, repo } = request.params as RepoParams;
  const name = parseUrlRepoPath(owner, repo).full;
  const release = deps.cache.hold(name);
  try {
    const synced = await deps.cache.sync(name);
    return await read({ ...synced, name });
  } finally {
    release();
  }
}

/**
 * Reads whose git work the requester sizes, run a few at once per caller, per owner and on the instance, waiting
 * their turn (as fetches do): history reads (compare, commit, commits: diffs of whatever the repository holds) and
 * file reads (a blob streamed for as long as its client reads). Unbounded, 12 compares of a repository made to be
 * costly to diff held both cores for 30 s, another tenant's commit taking 2 s where it took 65 ms, and 200 slow
 * blob readers held 200 git processes and 600 descriptors (found in review).
 */
export const DEFAULT_READ_BOUNDS: FetchBounds = Object.freeze({ perCaller: 4, perOwner: 6, total: 12, waitMs: 30_000 });
const HISTORY_READS: SlotKind = { what: 'history reads', codes: { owner: 'owner_reads_limit', instance: 'reads_busy' } };
const FILE_READS: SlotKind = { what: 'file reads', codes: { owner: 'owner_reads_limit', instance: 'reads_busy' } };

/** The turns of the two kinds of costly reads (one set of each per instance). */
export class ReadTurns {
  readonly history: FetchSlots;
  readonly files: FetchSlots;
  constructor(bounds: FetchBounds = DEFAULT_READ_BOUNDS) {
    this.history = new FetchSlots(bounds, undefined, HISTORY_READS);
    this.files = new FetchSlots(bounds, undefined, FILE_READS);
  }
}

/** {@link readRepo} once the request has its turn among `slots` (its caller's, its owner's and the instance's). */
export async function readRepoInTurn<T>(
  slots: FetchSlots,
  deps: RepoApiDependencies,
  request: FastifyRequest,
  reply: FastifyReply,
  read: (repo: SyncedRepo & { name: string }) => Promise<T>,
): Promise<T> {
  const release = await takeTurn(slots, request, reply, (request.params as RepoParams).owner);
  try {
    return await readRepo(deps, request, read);
  } finally {
    release();
  }
}
