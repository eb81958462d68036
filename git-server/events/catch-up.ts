// One catch-up of one repository for one target: from the target's cursor to the head, the entries' ref events
// posted in order, in batches, the cursor moved after each 2xx and never otherwise. Any number of bridges may
// run this on one bucket at once: the cursor's compare-and-swap keeps it from passing an entry one of them has
// not delivered, so the worst a race does is deliver a batch twice.
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import type { LogPage, RepoStore } from '../../src/repo-store/repo-store.ts';
import { parseRepoPath } from '../../src/repo-store/repo-path.ts';
import { cursorCounts, moveCursor, readCursor, type Cursor } from './cursor.ts';
import type { DeliveryOutcome } from './delivery-client.ts';
import type { DeliveryTarget } from './delivery-target.ts';
import type { EventFilter } from './event-filter.ts';
import { encodeBatch, refEventsOf, type RefEvent } from './ref-event.ts';
import { firstEntryAtOrAfter } from './start-point.ts';

/** Events per post at most (one entry's events are never split: an entry with more goes alone). */
export const BATCH_EVENTS = 500;
/** Log entries read per `listLog` page. */
const PAGE_ENTRIES = 100;

export interface CatchUpDependencies {
  readonly repos: Pick<RepoStore, 'readHead' | 'listLog'>;
  readonly store: ObjectStore;
  /** Posts one batch (`batch`: what it holds, for a delivery log); never throws. */
  readonly post: (target: DeliveryTarget, body: Uint8Array, signal?: AbortSignal, batch?: PostedBatch) => Promise<DeliveryOutcome>;
  readonly now?: () => Date;
  /** Default {@link BATCH_EVENTS}. */
  readonly batchEvents?: number;
}

/** What one post carries: the repository and its events (the body is their encoding). */
export interface PostedBatch {
  readonly repo: string;
  readonly events: readonly RefEvent[];
}

export interface CatchUpOptions {
  /** Aborts the post under way (its batch stays undelivered, the cursor where it was). */
  readonly abort?: AbortSignal;
  /** Once aborted, no further batch starts; the one under way finishes. */
  readonly stopping?: AbortSignal;
  /** Past this time (`now`, in ms), no further batch starts once one was posted: the report says `yielded`. */
  readonly yieldAt?: number;
}

/** Entries the log no longer holds, skipped: `fromSeq..toSeq`, inclusive. */
export interface Gap {
  readonly fromSeq: number;
  readonly toSeq: number;
}

export interface CatchUpReport {
  readonly repo: string;
  /** The first seq this catch-up had to deliver (the cursor as found, plus one). */
  readonly fromSeq: number;
  /** The head as the catch-up last read it. */
  readonly headSeq: number;
  /** The cursor afterwards: every entry up to it was delivered (or skipped as a gap). */
  readonly cursorSeq: number;
  /** Events acknowledged with a 2xx. */
  readonly emitted: number;
  /** Posts acknowledged with a 2xx. */
  readonly posts: number;
  readonly gap?: Gap;
  /** Set when a post was not acknowledged: the cursor stays before that batch. */
  readonly failure?: DeliveryOutcome;
  /** The repository was deleted and created again while it ran; nothing more was written. */
  readonly superseded?: true;
  /** It stopped short of the head at `yieldAt`, after a post: the rest is for another catch-up. */
  readonly yielded?: true;
}

/**
 * Delivers what `target` has not acknowledged yet in `repo`, up to the head. Without a cursor (or with one of
 * another incarnation) it starts at the first kept entry. A cursor behind the kept log is a gap: the missed
 * range is reported, and the cursor moves to the first kept entry before anything else, so the gap is counted
 * once and never silently filled. Throws what the store throws (`RepoNotFoundError`, `StoreUnavailableError`);
 * a delivery failure is not thrown but reported in `failure`.
 */
export async function catchUp(deps: CatchUpDependencies, target: DeliveryTarget, repo: string, options: CatchUpOptions = {}): Promise<CatchUpReport> {
  const path = parseRepoPath(repo);
  const now = deps.now ?? (() => new Date());
  const batchEvents = deps.batchEvents ?? BATCH_EVENTS;
  const key = target.cursorKey(path);
  // The cursor before the head: a bridge moves it only to a seq some head had, so the head read after it is at
  // least there. Read the other way round, a cursor another bridge moved in between would look ahead of the head.
  const found = await readCursor(deps.store, key);
  const head = await deps.repos.readHead(repo, { fresh: true });
  let cursor: Cursor | undefined = found;
  const counts = cursorCounts(found, head.repoId, head.seq);
  // A target that starts at a time (a per-repository webhook) begins with the first entry written since.
  const start = !counts && target.since ? (await firstEntryAtOrAfter(deps.repos, repo, head, target.since)) - 1 : head.logStart - 1;
  let at = counts ? found.seq : start;
  let headSeq = head.seq;
  const report = { repo: path.full, fromSeq: at + 1, emitted: 0, posts: 0 };
  let gap: Gap | undefined;
  const done = (extra: Partial<CatchUpReport> = {}): CatchUpReport => ({ ...report, headSeq, cursorSeq: at, ...(gap ? { gap } : {}), ...extra });

  // Moves the cursor to `seq` (everything up to it delivered or skipped); false when the repository was replaced.
  const advance = async (seq: number): Promise<boolean> => {
    const moved = await moveCursor(deps.store, key, cursor, { seq, repoId: head.repoId, now: now() });
    if (!moved) return false;
    cursor = moved;
    at = Math.max(seq, moved.seq);
    return true;
  };

  // Its place is kept from the start, so what is published from now on is not mistaken for what came before.
  if (!counts && target.since && !(await advance(at))) return done({ superseded: true });

  for (;;) {
    if (at >= headSeq || options.stopping?.aborted) return done();
    // After a post, so every turn moves the cursor however slow the rest of it was.
    if (report.posts > 0 && options.yieldAt !== undefined && now().getTime() >= options.yieldAt) return done({ yielded: true });
    const batch = await collectBatch(deps.repos, repo, at, batchEvents, target.filter);
    headSeq = batch.headSeq;
    if (batch.retiredUpTo !== undefined) {
      // Retention retired entries the cursor had not reached: skip them, once, on the record.
      gap = { fromSeq: gap?.fromSeq ?? at + 1, toSeq: batch.retiredUpTo };
      if (!(await advance(batch.retiredUpTo))) return done({ superseded: true });
      continue;
    }
    if (batch.upTo === at) return done();
    if (batch.events.length > 0) {
      const outcome = await deps.post(target, encodeBatch(batch.events), options.abort, { repo: path.full, events: batch.events });
      if (outcome.kind !== 'delivered') return done({ failure: outcome });
      report.emitted += batch.events.length;
      report.posts++;
    }
    if (!(await advance(batch.upTo))) return done({ superseded: true });
  }
}

interface Batch {
  readonly events: readonly RefEvent[];
  /** The last entry the batch covers (`at` when none). */
  readonly upTo: number;
  readonly headSeq: number;
  /** Set instead of events when the log now starts past `at + 1`: the last seq retention retired. */
  readonly retiredUpTo?: number;
}

/** The events after `at` (those `filter` passes), entry by entry, until the batch is full or the head is reached. */
async function collectBatch(repos: CatchUpDependencies['repos'], repo: string, at: number, limit: number, filter?: EventFilter): Promise<Batch> {
  const events: RefEvent[] = [];
  let upTo = at;
  let page: LogPage;
  do {
    page = await repos.listLog(repo, upTo + 1, { limit: PAGE_ENTRIES });
    if (page.logStart > upTo + 1) {
      // Entries went between two pages: deliver what was collected; the next batch finds the gap.
      return upTo === at ? { events, upTo, headSeq: page.headSeq, retiredUpTo: page.logStart - 1 } : { events, upTo, headSeq: page.headSeq };
    }
    for (const entry of page.entries) {
      const more = filter ? refEventsOf(repo, entry).filter(filter) : refEventsOf(repo, entry);
      if (events.length > 0 && events.length + more.length > limit) return { events, upTo, headSeq: page.headSeq };
      events.push(...more);
      upTo = entry.seq;
    }
  } while (events.length < limit && page.next !== undefined);
  return { events, upTo, headSeq: page.headSeq };
}
