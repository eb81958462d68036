// The chart's RBAC for cw-git is enough for per-repository webhooks: the ServiceAccount, Role and RoleBinding
// `helm template` renders for cw-git, applied to the real apiserver, and the events role's webhooks run with a token
// of that ServiceAccount alone (TokenRequest API): they watch the RepositoryWebhooks and the labelled Secrets,
// deliver, and write the status.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { findCondition } from '../src/conditions/index.ts';
import { loadKubeConnection, NAMESPACES, objectClient, type KubeObject, type ResourceRef } from '../src/kube/index.ts';
import { WebhookReceiver } from '../git-server/events/testing/webhook-receiver.ts';
import { WebhooksTestbed } from '../git-server/events/testing/webhooks-testbed.ts';
import { repoRoot, toolPath } from './harness/tools.ts';

const RBAC: Record<string, ResourceRef> = {
  ServiceAccount: { group: '', version: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  Role: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', kind: 'Role', namespaced: true },
  RoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings', kind: 'RoleBinding', namespaced: true },
};
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** cw-git's ServiceAccount, Role and RoleBinding as the chart renders them into `namespace`. */
async function chartRbac(namespace: string): Promise<KubeObject[]> {
  const values = ['api.publicUrl=https://api.example.com', 'runtime.baseDomain=apps.example.com', 'database.publicUrl=https://db.example.com'];
  const args = ['template', 'cw', join(repoRoot, 'charts/cloudwright'), '--namespace', namespace, ...values.flatMap((v) => ['--set-string', v])];
  const { stdout } = await promisify(execFile)(toolPath('helm'), args, { maxBuffer: 16 << 20 });
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as KubeObject)
    .filter((o) => o?.kind !== undefined && o.kind in RBAC && o.metadata?.name === 'cloudwright-git');
}

/** A kubeconfig for the test's apiserver that authenticates with a token of `serviceAccount` alone. */
async function serviceAccountKubeconfig(namespace: string, serviceAccount: string, dir: string): Promise<string> {
  const admin = loadKubeConnection(inject('kubeconfig'));
  const path = `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`;
  const { status } = await admin.api.request<{ status: { token: string } }>('POST', path, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  const config = parse(readFileSync(inject('kubeconfig'), 'utf8')) as { users: { name: string; user: Record<string, unknown> }[] };
  const file = join(dir, `${serviceAccount}.kubeconfig`);
  writeFileSync(file, stringify({ ...config, users: config.users.map((u) => ({ name: u.name, user: { token: status.token } })) }), { mode: 0o600 });
  return file;
}

describe("the chart's RBAC for cw-git", () => {
  it('lets the events role watch RepositoryWebhooks and labelled Secrets, deliver, and write the status', { timeout: 60_000 }, async () => {
    const bed = await WebhooksTestbed.create('rbac');
    cleanups.push(() => bed.close());
    const receiver = await WebhookReceiver.start({ secret: 'rbac-secret' });
    cleanups.push(() => receiver.close());
    const rbac = await chartRbac(bed.namespace);
    expect(rbac.map((o) => o.kind).sort()).toEqual(['Role', 'RoleBinding', 'ServiceAccount']);
    for (const object of rbac) await objectClient(bed.kube, RBAC[object.kind ?? '']!).apply(object, { fieldManager: 'rbac-test', force: true });
    const kubeconfig = await serviceAccountKubeconfig(bed.namespace, 'cloudwright-git', inject('stateDir'));
    // The token is the ServiceAccount's alone: what its Role does not grant is refused.
    await expect(objectClient(loadKubeConnection(kubeconfig), NAMESPACES).list('')).rejects.toMatchObject({ code: 403 });

    const repo = await bed.repository('rbac');
    await bed.secret('rbac-keys', { key: 'rbac-secret' });
    const lane = await bed.lane({ kubeconfig });
    await bed.webhook('rbac', { repository: repo, url: receiver.url, secretRef: { name: 'rbac-keys', key: 'key' } });
    await bed.resource('rbac', (h) => findCondition(h?.status?.conditions, 'Ready')?.status === 'True');
    await bed.publish(repo, ['+main']);
    lane.wake(repo);
    await receiver.until(() => receiver.acknowledged().length === 1);
    expect(receiver.arrivals[0]?.signatureValid).toBe(true);
    await bed.resource('rbac', (h) => findCondition(h?.status?.conditions, 'Ready')?.status === 'True' && h?.status?.lastDelivery?.status === 'succeeded');
  });
});
