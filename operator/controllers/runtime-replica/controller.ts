import type { Registry } from 'prom-client';
import type { RuntimeReplicaReport } from '../../../src/apis/v1alpha1/runtime-replica-report.ts';
import type { RuntimeReplica } from '../../../src/apis/v1alpha1/runtime-replica.ts';
import { inParallel } from '../../../src/collections/in-parallel.ts';
import { isConflict, LEASES, objectClient, objectKey, type KubeConnection } from '../../../src/kube/index.ts';
import { RUNTIME_REPLICA_REPORTS, RUNTIME_REPLICAS } from '../../../src/platform/resources.ts';
import type { ReplicaLease, RuntimeReplicaView } from '../../../src/platform/runtime-replicas.ts';
import { Controller } from '../../../src/controller-runtime/controller.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { replicaPlan } from './expiry.ts';

export interface RuntimeReplicaControllerDeps {
  kube: KubeConnection;
  replicas: RuntimeReplicaView;
  registry: Registry;
  log: Logger;
  now?: () => number;
}

/**
 * Removes the RuntimeReplica, RuntimeReplicaReports and Lease of a cw-runtime replica whose Lease expired
 * (killed, its node gone, or outside a cluster where no pod owns them), so it stops counting for good and
 * its objects do not pile up; a replica that stops gracefully deletes its own, and in a cluster the garbage
 * collector deletes a deleted pod's. Its reports are found in the watched ones by `spec.replica` (a scan,
 * once per expiry). Each renewal of a Lease is a watch event; otherwise the only wake-up is a requeue at the
 * Lease's expiry. Deletes are conditional on the version read, so a renewal that races the removal wins:
 * the replica is then live, and is looked at again.
 */
export function runtimeReplicaController(deps: RuntimeReplicaControllerDeps): Controller<RuntimeReplica> {
  const replicas = objectClient<RuntimeReplica>(deps.kube, RUNTIME_REPLICAS);
  const leases = objectClient<ReplicaLease>(deps.kube, LEASES);
  const reportClient = objectClient<RuntimeReplicaReport>(deps.kube, RUNTIME_REPLICA_REPORTS);
  const reports = deps.replicas.reports;
  if (!reports) throw new Error('the RuntimeReplica controller removes the replicas’ RuntimeReplicaReports: give the view its reports informer');
  const reportsOf = (namespace: string, name: string) => reports.list(namespace).filter((r) => r.metadata?.namespace === namespace && r.spec.replica === name);
  const now = deps.now ?? Date.now;
  return new Controller<RuntimeReplica>({
    name: 'runtimereplica',
    kind: 'RuntimeReplica',
    source: deps.replicas.replicas,
    // A Lease or reports without their RuntimeReplica (a replica killed between writing them) are cleaned up too.
    owns: [
      { kind: 'Lease', source: deps.replicas.leases, mapToOwner: (lease) => [objectKey(lease)] },
      { kind: 'RuntimeReplicaReport', source: reports, mapToOwner: (report) => [`${report.metadata?.namespace ?? ''}/${(report as RuntimeReplicaReport).spec.replica}`] },
    ],
    registry: deps.registry,
    log: deps.log,
    reconcile: async (key, { namespace, name, log }) => {
      const replica = deps.replicas.replicas.get(key);
      const lease = deps.replicas.leases.get(key);
      // With a lease the plan is the lease's, so a renewal (every few seconds per replica) scans no reports;
      // they are looked up only without one, or to remove them.
      const known = lease ? undefined : reportsOf(namespace, name);
      const plan = replicaPlan(name, replica, lease, now(), known);
      if (plan.action === 'wait') return { requeueAfter: Math.max(1, plan.at - now() + 1) };
      if (plan.action === 'none') return;
      const owned = known ?? reportsOf(namespace, name);
      try {
        const versionOf = (obj: { metadata?: { resourceVersion?: string } } | undefined) => ({ preconditions: { resourceVersion: obj?.metadata?.resourceVersion } });
        if (lease) await leases.delete(namespace, name, versionOf(lease));
        await inParallel(owned, (report) => reportClient.delete(namespace, report.metadata?.name ?? '', versionOf(report)));
        if (replica) await replicas.delete(namespace, name, versionOf(replica));
      } catch (err) {
        if (isConflict(err)) return { requeue: true }; // renewed meanwhile: the next event tells
        throw err;
      }
      log.info('removed an expired runtime replica', { replica: name, reports: owned.length });
    },
  });
}
