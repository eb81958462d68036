import type { KubeObject } from '../../../src/kube/index.ts';
import { DEFAULT_REPLICA_LEASE_SECONDS, leaseExpiry, type ReplicaLease } from '../../../src/platform/runtime-replicas.ts';

/** What to do with one replica's objects: nothing until `at` (look again then), or remove them. */
export type ReplicaPlan = { readonly action: 'wait'; readonly at: number } | { readonly action: 'remove' } | { readonly action: 'none' };

/**
 * The plan for a replica named `name` (pure), given its RuntimeReplica, its Lease and its
 * RuntimeReplicaReports. Its objects go once its Lease has expired: it crashed, or its node is gone, and it
 * cannot delete them itself. A RuntimeReplica or reports without a Lease are given a lease duration from the
 * first one's creation (the replica writes its Lease first, but this controller's watches may show them in
 * any order) and are then removed too.
 */
export function replicaPlan(name: string, replica: KubeObject | undefined, lease: ReplicaLease | undefined, now: number, reports: readonly KubeObject[] = []): ReplicaPlan {
  if (!replica && !lease && reports.length === 0) return { action: 'none' };
  const created = Math.min(...[replica, ...reports].map((obj) => Date.parse(obj?.metadata?.creationTimestamp ?? '')).filter((t) => !Number.isNaN(t)));
  const expiry = lease ? leaseExpiry(lease, name) : created + DEFAULT_REPLICA_LEASE_SECONDS * 1000;
  if (expiry === undefined || !Number.isFinite(expiry) || expiry <= now) return { action: 'remove' };
  return { action: 'wait', at: expiry };
}
