import type { RuntimeReplica } from '../../../src/apis/v1alpha1/runtime-replica.ts';
import { DEFAULT_REPLICA_LEASE_SECONDS, leaseExpiry, type ReplicaLease } from '../../../src/platform/runtime-replicas.ts';

/** What to do with one replica's objects: nothing until `at` (look again then), or remove them. */
export type ReplicaPlan = { readonly action: 'wait'; readonly at: number } | { readonly action: 'remove' } | { readonly action: 'none' };

/**
 * The plan for a replica named `name` (pure). Its objects go once its Lease has expired: it crashed, or its
 * node is gone, and it cannot delete them itself. A RuntimeReplica without a Lease is given a lease
 * duration from its creation (the replica writes its Lease first, but this controller's two watches may
 * show them in either order) and is then removed too.
 */
export function replicaPlan(name: string, replica: RuntimeReplica | undefined, lease: ReplicaLease | undefined, now: number): ReplicaPlan {
  if (!replica && !lease) return { action: 'none' };
  const expiry = lease ? leaseExpiry(lease, name) : Date.parse(replica?.metadata?.creationTimestamp ?? '') + DEFAULT_REPLICA_LEASE_SECONDS * 1000;
  if (expiry === undefined || Number.isNaN(expiry) || expiry <= now) return { action: 'remove' };
  return { action: 'wait', at: expiry };
}
