import type { RuntimeReplica } from '../apis/v1alpha1/runtime-replica.ts';
import { LEASES, type Informer, type KubeObject, type ResourceRef } from '../kube/index.ts';
import { RUNTIME_REPLICAS } from './resources.ts';
import { RUNTIME_REPLICA_LABEL, RuntimeReplicaView, type ReplicaLease } from './runtime-replicas.ts';

/**
 * The runtime replicas' view from a process's informers (`informer(resource, labelSelector)`, scoped by the
 * caller to the platform's namespace): their RuntimeReplicas and their Leases, both selected by label, so
 * the operator's own leader-election Lease is not watched.
 */
export function runtimeReplicaView(informer: <T extends KubeObject>(resource: ResourceRef, labelSelector: string) => Informer<T>): RuntimeReplicaView {
  return new RuntimeReplicaView(informer<RuntimeReplica>(RUNTIME_REPLICAS, RUNTIME_REPLICA_LABEL), informer<ReplicaLease>(LEASES, RUNTIME_REPLICA_LABEL));
}
