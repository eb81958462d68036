import type { RuntimeReplicaReport } from '../apis/v1alpha1/runtime-replica-report.ts';
import type { RuntimeReplica } from '../apis/v1alpha1/runtime-replica.ts';
import { LEASES, type Informer, type KubeObject, type ResourceRef } from '../kube/index.ts';
import { RUNTIME_REPLICA_REPORTS, RUNTIME_REPLICAS } from './resources.ts';
import { RUNTIME_REPLICA_LABEL, RuntimeReplicaView, type ReplicaLease } from './runtime-replicas.ts';

/**
 * The runtime replicas' view from a process's informers (`informer(resource, labelSelector)`, scoped by the
 * caller to the platform's namespace): their RuntimeReplicas and their Leases, both selected by label, so
 * the operator's own leader-election Lease is not watched; with `reports` (the operator), their
 * RuntimeReplicaReports too.
 */
export function runtimeReplicaView(informer: <T extends KubeObject>(resource: ResourceRef, labelSelector: string) => Informer<T>, options: { reports?: boolean } = {}): RuntimeReplicaView {
  return new RuntimeReplicaView(
    informer<RuntimeReplica>(RUNTIME_REPLICAS, RUNTIME_REPLICA_LABEL),
    informer<ReplicaLease>(LEASES, RUNTIME_REPLICA_LABEL),
    options.reports ? informer<RuntimeReplicaReport>(RUNTIME_REPLICA_REPORTS, RUNTIME_REPLICA_LABEL) : undefined,
  );
}
