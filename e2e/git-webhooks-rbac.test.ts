// The chart's RBAC for cw-git is enough for per-repository webhooks, and no more: the ServiceAccount, Roles and
// RoleBindings `helm template` renders for cw-git (the release namespace's for Repositories, the webhook
// namespace's for RepositoryWebhooks and their Secrets), applied to the real apiserver, and the events role's
// webhooks run with a token of that ServiceAccount alone (TokenRequest API): they watch the RepositoryWebhooks and
// the labelled Secrets, deliver, and write the status; no Secret of the release namespace is within reach.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { findCondition } from '../src/conditions/index.ts';
import { loadKubeConnection, NAMESPACES, objectClient, SECRETS, type KubeObject, type ResourceRef } from '../src/kube/index.ts';
import { WebhookReceiver } from '../git-server/events/testing/webhook-receiver.ts';
import { WebhooksTestbed } from '../git-server/events/testing/webhooks-testbed.ts';
import { mayDo, serviceAccount } from './harness/access-review.ts';
import { createTestNamespace } from './harness/namespace.ts';
import { CHART_KUBE_VERSION, repoRoot, toolPath } from './harness/tools.ts';

const RBAC: Record<string, ResourceRef> = {
  ServiceAccount: { group: '', version: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  Role: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', kind: 'Role', namespaced: true },
  RoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings', kind: 'RoleBinding', namespaced: true },
};
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** cw-git's ServiceAccount, Roles and RoleBindings as the chart renders them into `namespace`, its webhooks into `webhookNamespace`. */
async function chartRbac(namespace: string, webhookNamespace: string): Promise<KubeObject[]> {
  const values = ['api.publicUrl=https://api.example.com', 'runtime.baseDomain=apps.example.com', 'database.publicUrl=https://db.example.com', `git.webhookNamespace=${webhookNamespace}`];
  // The NetworkPolicies need the apiserver's address, which a render without a cluster cannot look up; this test is about RBAC.
  const args = [
    'template',
    'cw',
    join(repoRoot, 'charts/cloudwright'),
    '--namespace',
    namespace,
    '--kube-version',
    CHART_KUBE_VERSION,
    ...values.flatMap((v) => ['--set-string', v]),
    '--set',
    'networkPolicy.enabled=false',
  ];
  const { stdout } = await promisify(execFile)(toolPath('helm'), args, { maxBuffer: 16 << 20 });
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as KubeObject)
    .filter((o) => o?.kind !== undefined && o.kind in RBAC && o.metadata?.name?.startsWith('cloudwright-git'));
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
  it('lets the events role watch RepositoryWebhooks and labelled Secrets of the webhook namespace, deliver, and write the status; no other Secret', { timeout: 60_000 }, async () => {
    const bed = await WebhooksTestbed.create('rbac');
    cleanups.push(() => bed.close());
    const receiver = await WebhookReceiver.start({ secret: 'rbac-secret' });
    cleanups.push(() => receiver.close());
    // The release namespace (holding, in a real install, cw-db's admin token and the cloud credentials) and the
    // testbed's namespace as the webhook namespace.
    const release = await createTestNamespace(bed.kube, 'rbac-release');
    cleanups.push(() => objectClient(bed.kube, NAMESPACES).delete('', release));
    const rbac = await chartRbac(release, bed.namespace);
    expect(rbac.map((o) => `${o.kind} ${o.metadata?.namespace}/${o.metadata?.name}`).sort()).toEqual([
      `Role ${bed.namespace}/cloudwright-git-webhooks`,
      `Role ${release}/cloudwright-git`,
      `RoleBinding ${bed.namespace}/cloudwright-git-webhooks`,
      `RoleBinding ${release}/cloudwright-git`,
      `ServiceAccount ${release}/cloudwright-git`,
    ]);
    for (const object of rbac) await objectClient(bed.kube, RBAC[object.kind ?? '']!).apply(object, { fieldManager: 'rbac-test', force: true });
    const kubeconfig = await serviceAccountKubeconfig(release, 'cloudwright-git', inject('stateDir'));
    // The token is the ServiceAccount's alone: what its Roles do not grant is refused.
    const asGit = loadKubeConnection(kubeconfig);
    await expect(objectClient(asGit, NAMESPACES).list('')).rejects.toMatchObject({ code: 403 });
    // Secrets: those of the webhook namespace only, listed (no other namespace's, the release's least of all).
    const git = serviceAccount(release, 'cloudwright-git');
    expect(await mayDo(bed.kube, git, { verb: 'list', group: '', resource: 'secrets', namespace: bed.namespace })).toBe(true);
    for (const verb of ['get', 'list', 'watch']) expect(await mayDo(bed.kube, git, { verb, group: '', resource: 'secrets', namespace: release }), verb).toBe(false);
    expect(await mayDo(bed.kube, git, { verb: 'list', group: '', resource: 'secrets' })).toBe(false);
    expect(await mayDo(bed.kube, git, { verb: 'create', group: 'cloudwright.dev', resource: 'repositories', namespace: release })).toBe(true);
    expect(await mayDo(bed.kube, git, { verb: 'watch', group: 'cloudwright.dev', resource: 'repositorywebhooks', namespace: release })).toBe(false);
    await expect(objectClient(asGit, SECRETS).list(release)).rejects.toMatchObject({ code: 403 });

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
