// Closing the connections of databases nobody uses, so a replica's memory follows the databases in use.
import type { Logger } from '../src/logging/log.ts';
import type { KeyedMutex } from '../src/collections/keyed-mutex.ts';
import type { StreamRegistry } from './hrana/stream-registry.ts';
import type { OpenDatabases } from './open-databases.ts';
import type { DatabaseEngine } from './shards/engine-port.ts';
import type { Entry } from './tenant-entry.ts';

/** When `closeIdle` closes a database: idle this long, or over the bound of open ones in its shard and idle `graceMs`. */
export interface IdlePolicy {
  readonly idleMs: number;
  readonly maxOpenPerShard?: number;
  readonly graceMs: number;
}

/** What closing reads and takes of the tenant directory: its tenants, their change mutex and their locks. */
export interface IdleClosing {
  readonly tenants: ReadonlyMap<string, Entry>;
  readonly changes: KeyedMutex;
  /** Runs `fn` under the tenant's lock (the one its requests take). */
  readonly locked: <T>(tenant: string, fn: () => Promise<T>) => Promise<T>;
  readonly open: OpenDatabases;
  readonly engine: DatabaseEngine;
  readonly streams: StreamRegistry;
  readonly log: Logger;
  /** The time of this pass (epoch ms). */
  readonly now: number;
}

/**
 * Closes the connections of databases no request used for `policy.idleMs`, and in a shard with more than
 * `policy.maxOpenPerShard` open the least recently used past that (not used for `graceMs`), so a replica's memory
 * follows the databases in use rather than every one it owns, and one tenant's many databases cannot keep
 * another's from opening; the next request opens one again. A database a stream holds stays open. Each closes under
 * its lock once its replica sealed what it captured and emptied the WAL, so the generation goes on from the file
 * (no new snapshot when it opens again). Answers how many were closed.
 */
export async function closeIdleDatabases(directory: IdleClosing, policy: IdlePolicy): Promise<number> {
  const { tenants, changes, locked, open, engine, streams, now, log } = directory;
  // A request in progress (it holds the lock) is a use, though its last use was when it began: one running past the
  // idle time is passed over, never waited for, so it cannot hold up the round's other closes.
  const inUse = (tenant: string) => streams.hasStreams(tenant) || streams.isBusy(tenant);
  // Each candidate with the last use that still lets it close (looked at again under its lock).
  const candidates = new Map<string, number>();
  if (policy.maxOpenPerShard !== undefined) {
    for (const tenant of open.overBound(policy.maxOpenPerShard, now - policy.graceMs, (t) => !inUse(t))) candidates.set(tenant, now - policy.graceMs);
  }
  for (const tenant of open.idleSince(now - policy.idleMs)) candidates.set(tenant, now - policy.idleMs);
  let closed = 0;
  for (const [tenant, before] of candidates) {
    const entry = tenants.get(tenant);
    const replica = entry?.replica;
    // Not while its snapshot is copied: the close would wait for the copy under the lock, its requests with it.
    if (!entry || !replica || entry.shipping || entry.restoring || replica.copying || replica.pendingBytes > 0 || inUse(tenant)) continue;
    const done = await changes
      .run(tenant, async () => {
        if (streams.isBusy(tenant)) return false;
        return locked(tenant, async () => {
          // Looked at again under the lock: a request may have come, or the tenant gone, meanwhile.
          const used = open.lastUsedAt(tenant);
          if (tenants.get(tenant) !== entry || entry.replica !== replica || replica.copying || used === undefined || used > before || streams.hasStreams(tenant)) return false;
          await replica.restLocked();
          await engine.closeTenant(tenant);
          return true;
        });
      })
      .catch((err: unknown) => {
        log.warn('closing an idle database failed; it stays open', { tenant, err });
        return false;
      });
    if (done) closed++;
  }
  return closed;
}
