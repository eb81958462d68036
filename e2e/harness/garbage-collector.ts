import { randomBytes } from 'node:crypto';
import { CONFIG_MAPS, loadKubeConnection, objectClient, type KubeObject } from '../../src/kube/index.ts';
import { RUNTIME_REPLICAS } from '../../src/platform/resources.ts';
import { watchUntil } from './watch.ts';

/**
 * Waits until the control plane's garbage collector deletes an owned object of one of our kinds whose owner is
 * gone. It learns of new resources on a resync (kube-controller-manager's, every 30 s), so right after the CRDs
 * are installed an owned custom object outlives its owner until then: a test that deletes an owner and waits for
 * its dependents (an AppHostname's DnsRecords) would time out if it ran first. Every CRD is installed at once
 * and found by the same resync, so one kind stands for all.
 */
export async function waitForGarbageCollector(kubeconfig: string, timeoutMs = 90_000): Promise<void> {
  const conn = loadKubeConnection(kubeconfig);
  const name = `gc-probe-${randomBytes(4).toString('hex')}`;
  const namespace = 'default';
  const owner = await objectClient<KubeObject>(conn, CONFIG_MAPS).create({ metadata: { name, namespace } });
  // No runtime-replica label: no view of replicas reads it.
  await objectClient<KubeObject & { spec: { ready: boolean } }>(conn, RUNTIME_REPLICAS).create({
    metadata: { name, namespace, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: owner.metadata?.uid ?? '' }] },
    spec: { ready: false },
  });
  await objectClient<KubeObject>(conn, CONFIG_MAPS).delete(namespace, name);
  await watchUntil(conn, RUNTIME_REPLICAS, { namespace, timeoutMs, what: 'the garbage collector deleting an owned RuntimeReplica' }, (replicas) => !replicas.some((r) => r.metadata?.name === name));
}
