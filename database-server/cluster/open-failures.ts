// Replicas that could not open a database, kept in its lease: placement passes them over for it while that very
// process lives. Without it, a replica that could not open a database it is preferred for (its shards' memory
// full, its disk full) took it back every round, restoring it from the bucket each time, while the replica that
// could serve it handed it back to it as soon as it had it: nobody served it (review-164 F11).
import type { Lease, ReplicaProcess } from './lease-store.ts';

/** The lease, released after `self` failed to open the database: `self` is noted among those that could not. */
export function withOpenFailure(lease: Lease, self: ReplicaProcess): Lease {
  const others = (lease.failedToOpen ?? []).filter((r) => r.name !== self.name);
  return { ...lease, failedToOpen: [...others, { name: self.name, nonce: self.nonce }] };
}

/** The failures still standing: those of processes alive now (a restarted replica is tried again). */
export function standingFailures(lease: Lease | undefined, alive: (process: ReplicaProcess) => boolean): ReplicaProcess[] {
  return (lease?.failedToOpen ?? []).filter(alive);
}

/**
 * The replicas placement may give the database to: the live ones but those that could not open it. None left: none
 * is preferred, and each tries it only once it was free for a whole lease, not every round.
 */
export function placeable(live: string[], failures: ReplicaProcess[]): string[] {
  return live.filter((name) => !failures.some((f) => f.name === name));
}
