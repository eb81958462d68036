import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadKubeConnection, objectClient, type KubeObject, type ResourceRef } from '../../src/kube/index.ts';
import { USERS } from '../../src/platform/resources.ts';
import { repoRoot } from './tools.ts';
import { watchUntil } from './watch.ts';

const CLUSTER_ROLES: ResourceRef = { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false };
/** The CRD `installCrds` applies last (it goes in name order). */
const LAST_CRD = 'users.cloudwright.dev.yaml';

/**
 * Waits until the control plane's garbage collector deletes an owned object of our kinds whose owner is gone. It
 * learns of new resources at its start and then on a resync (kube-controller-manager's, every 30 s), so CRDs
 * installed after it started leave an owned custom object outliving its owner until then: a test that deletes an
 * owner and waits for its dependents (an AppHostname's DnsRecords) would time out if it ran first. The test
 * control plane starts its controllers after the CRDs are in (`holdControllers`), so this is a check there, not
 * a wait. The probe is a User, the kind whose CRD was applied last: a collector that knows it knows every one.
 */
export async function waitForGarbageCollector(kubeconfig: string, timeoutMs = 90_000): Promise<void> {
  const last = readdirSync(join(repoRoot, 'crds'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .at(-1);
  if (last !== LAST_CRD) throw new Error(`the garbage collector's probe uses the last CRD installed, ${LAST_CRD}, but that is now ${last}: probe that kind instead`);
  const conn = loadKubeConnection(kubeconfig);
  const name = `gc-probe-${randomBytes(4).toString('hex')}`;
  const owner = await objectClient<KubeObject>(conn, CLUSTER_ROLES).create({ metadata: { name } });
  await objectClient<KubeObject & { spec: Record<string, never> }>(conn, USERS).create({
    metadata: { name, ownerReferences: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name, uid: owner.metadata?.uid ?? '' }] },
    spec: {},
  });
  await objectClient<KubeObject>(conn, CLUSTER_ROLES).delete('', name);
  await watchUntil(conn, USERS, { timeoutMs, what: 'the garbage collector deleting an owned User' }, (users) => !users.some((u) => u.metadata?.name === name));
}
