// The Project controller in this process against the real apiserver: a project gets a namespace of its own,
// owned through an owner reference, and a namespace that already exists under the project's name is never
// adopted (else deleting the project would let the garbage collector delete someone else's namespace).
// Into its namespace go the object-count quota, which the apiserver then enforces on kubectl-style creates
// (the control plane's quota controller counts), and the operator's RoleBinding; both are put back when changed.
// The controller sees only this file's Projects (a label of their own), so other tests' projects are left alone.
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Project } from '../../../src/apis/v1alpha1/project.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { API_VERSION, countQuantity, createInformer, objectClient, quotaRefusal, RESOURCE_QUOTAS, ROLE_BINDINGS, statusCodeOf, type Informer, type KubeObject } from '../../../src/kube/index.ts';
import { testConnection } from '../../../src/kube/testing/test-kube.ts';
import { PROJECT_OBJECT_COUNTS, PROJECT_QUOTA_NAME, type ResourceQuota } from '../../../src/platform/project-quota.ts';
import { NAMESPACES, PROJECT_LABEL, PROJECTS, RUNTIME_APPS, TLS_CERTIFICATES } from '../../../src/platform/resources.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { eventually } from '../../../e2e/harness/runtime-stack.ts';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { projectController } from './controller.ts';
import { OPERATOR_BINDING_NAME, type ProjectAccess, type RoleBinding } from './operator-access.ts';

const conn = testConnection();
const projects = objectClient<Project>(conn, PROJECTS);
const namespaces = objectClient<KubeObject>(conn, NAMESPACES);
const certificates = objectClient<TlsCertificate>(conn, TLS_CERTIFICATES);
const RUN_LABEL = 'test.cloudwright.dev/project-controller';
const run = randomBytes(4).toString('hex');
const created: string[] = [];
const quotas = objectClient<ResourceQuota & { status?: { hard?: Record<string, string>; used?: Record<string, string> } }>(conn, RESOURCE_QUOTAS);
const bindings = objectClient<RoleBinding>(conn, ROLE_BINDINGS);
const access: ProjectAccess = { clusterRole: 'cloudwright-test-operator-project', serviceAccount: { namespace: 'default', name: 'cloudwright-test-operator' } };
let informers: { projects: Informer<Project>; namespaces: Informer<KubeObject>; quotas: Informer<ResourceQuota>; bindings: Informer<RoleBinding> };
let controller: Controller<Project>;
const registry = new Registry();
/** Reconciles of the project controller that asked to look again later. */
const recheckCount = async () =>
  (await registry.getSingleMetric('controller_runtime_reconcile_total')?.get())?.values.find((v) => v.labels.controller === 'project' && v.labels.result === 'requeue_after')?.value ?? 0;

beforeAll(async () => {
  informers = {
    projects: createInformer<Project>(conn, PROJECTS, { labelSelector: `${RUN_LABEL}=${run}` }),
    namespaces: createInformer<KubeObject>(conn, NAMESPACES, { labelSelector: PROJECT_LABEL }),
    quotas: createInformer<ResourceQuota>(conn, RESOURCE_QUOTAS, { labelSelector: PROJECT_LABEL }),
    bindings: createInformer<RoleBinding>(conn, ROLE_BINDINGS, { labelSelector: PROJECT_LABEL }),
  };
  const { bindings: bound, ...rest } = informers;
  controller = projectController({
    kube: conn,
    ...rest,
    access: { project: access, bindings: bound },
    registry,
    log: silentLogger,
    conflictRecheckMs: 200,
    defaultHostsCertificate: { baseDomain: 'apps.pctl.test' },
  });
  for (const informer of Object.values(informers)) informer.start();
  await controller.start();
});

afterAll(async () => {
  await controller?.stop();
  for (const informer of Object.values(informers ?? {})) informer.stop();
  for (const name of created) {
    await projects.delete('', name).catch(() => {});
    await namespaces.delete('', name).catch(() => {});
  }
});

/** Creates a Project this file's controller sees, named `name` (default: a fresh one); answers the name. */
async function createProject(name = `pctl-${randomBytes(4).toString('hex')}`): Promise<string> {
  created.push(name);
  await projects.create({
    apiVersion: API_VERSION,
    kind: 'Project',
    metadata: { name, labels: { [RUN_LABEL]: run } },
    spec: { displayName: name, members: [{ user: 'someone', role: 'owner' }] },
  });
  return name;
}

const ready = (project: Project | undefined) => findCondition(project?.status?.conditions, 'Ready');

describe('the Project controller', () => {
  it('gives a project a namespace of its own, labelled and owned by it', async () => {
    const name = await createProject();
    const project = await eventually(
      'Ready',
      () => projects.get('', name),
      (p) => ready(p)?.status === 'True',
    );
    expect(ready(project)).toMatchObject({ reason: 'NamespaceOwned' });
    expect(project?.status?.namespace).toBe(name);
    const namespace = await namespaces.get('', name);
    expect(namespace?.metadata?.labels?.[PROJECT_LABEL]).toBe(name);
    expect(namespace?.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'Project', name, uid: project?.metadata?.uid, controller: true })]);
  });

  it("writes the operator's RoleBinding into the namespace, and puts it back when deleted or changed", async () => {
    const name = await createProject();
    const binding = await eventually(
      'the RoleBinding',
      () => bindings.get(name, OPERATOR_BINDING_NAME),
      (b) => b !== undefined,
    );
    expect(binding?.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: access.clusterRole });
    expect(binding?.subjects).toEqual([{ kind: 'ServiceAccount', name: 'cloudwright-test-operator', namespace: 'default' }]);
    // Someone adds themselves to it: the binding is put back as it was.
    await bindings.patch(name, OPERATOR_BINDING_NAME, { subjects: [...(binding?.subjects ?? []), { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'mallory' }] });
    await eventually(
      'the subjects put back',
      () => bindings.get(name, OPERATOR_BINDING_NAME),
      (b) => b?.subjects?.length === 1,
    );
    // Deleted: made again.
    await bindings.delete(name, OPERATOR_BINDING_NAME);
    await eventually(
      'the RoleBinding made again',
      () => bindings.get(name, OPERATOR_BINDING_NAME),
      (b) => b !== undefined && b.metadata?.uid !== binding?.metadata?.uid,
    );
  });

  it('writes the object-count quota the apiserver holds kubectl-style creates to, and puts it back when changed, and the default-hosts certificate', { timeout: 120_000 }, async () => {
    const name = await createProject();
    // Counted by the control plane's quota controller, which learns of custom resources up to 30 s after they are
    // defined (it rediscovers them that often); until then the apiserver refuses creates ("status unknown").
    const quota = await eventually(
      'the quota, counted',
      () => quotas.get(name, PROJECT_QUOTA_NAME),
      (q) => q?.status?.used?.['count/runtimeapps.cloudwright.dev'] !== undefined,
      45_000,
    );
    // Its apps' default hosts get one wildcard certificate (DNS-01 in the base domain's zone), created once the
    // quota counts TlsCertificates too (until then the apiserver refuses it, and the controller tries again).
    const certificate = await eventually(
      'default-hosts certificate',
      () => certificates.get(name, 'default-hosts'),
      (c) => c !== undefined,
      45_000,
    );
    expect(certificate?.spec).toEqual({ dnsNames: [`*.${name}.apps.pctl.test`], challenge: 'dns-01' });
    const owner = await projects.get('', name);
    expect(certificate?.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'Project', name, uid: owner?.metadata?.uid })]);
    expect(Object.fromEntries(Object.entries(quota?.spec?.hard ?? {}).map(([k, v]) => [k, countQuantity(v)]))).toEqual(
      Object.fromEntries(Object.entries(PROJECT_OBJECT_COUNTS).map(([plural, count]) => [`count/${plural}.cloudwright.dev`, count])),
    );

    // Apps applied as kubectl would (no API): the first 100 are taken, the 101st is refused by the apiserver.
    const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
    const app = (i: number) => apps.create({ metadata: { name: `a${i}`, namespace: name }, spec: { displayName: `a${i}` } });
    const limit = PROJECT_OBJECT_COUNTS.runtimeapps ?? 0;
    for (let i = 0; i < limit; i += 20) await Promise.all(Array.from({ length: Math.min(20, limit - i) }, (_, j) => app(i + j)));
    // The quota's count as the apiserver holds it: each create adds to it, and the quota controller's recount from its
    // own cache may lower it for a moment while that cache lags behind a burst of creates (kubernetes#39599), which
    // let a 101st through once. The claim is about a count at its limit.
    await eventually(
      'the quota at its limit',
      () => quotas.get(name, PROJECT_QUOTA_NAME),
      (q) => countQuantity(q?.status?.used?.['count/runtimeapps.cloudwright.dev']) === limit,
      45_000,
    );
    // The apiserver answers a create it could not judge in time (a 5xx, a 409 of its own quota update) when loaded:
    // tried again, as a client would; anything else is the answer (failed CI once with neither shown).
    let refused: unknown;
    for (let attempt = 0; attempt < 5; attempt++) {
      refused = await app(limit).catch((err: unknown) => err);
      const status = statusCodeOf(refused);
      if (status === undefined || status === 403 || (status < 500 && status !== 409 && status !== 429)) break;
    }
    expect(quotaRefusal(refused), String((refused as Error)?.message ?? 'created')).toEqual({
      kind: 'exceeded',
      quota: PROJECT_QUOTA_NAME,
      exceeded: [{ resource: 'count/runtimeapps.cloudwright.dev', used: limit, limited: limit }],
    });
    expect((await apps.list(name)).items).toHaveLength(limit);

    // An administrator raises the count (another field manager): the controller puts its own number back.
    await quotas.patch(name, PROJECT_QUOTA_NAME, { spec: { hard: { 'count/runtimeapps.cloudwright.dev': '3002' } } });
    await eventually(
      'the count put back',
      () => quotas.get(name, PROJECT_QUOTA_NAME),
      (q) => countQuantity(q?.spec?.hard?.['count/runtimeapps.cloudwright.dev']) === limit,
    );
  });

  it('never adopts a namespace that already exists under the project’s name: NamespaceConflict, and the namespace is left as it was', async () => {
    const name = `pctl-${randomBytes(4).toString('hex')}`;
    await namespaces.create({ metadata: { name, labels: { team: 'someone-else' } } });
    await createProject(name);
    const project = await eventually(
      'NamespaceConflict',
      () => projects.get('', name),
      (p) => ready(p)?.reason === 'NamespaceConflict',
    );
    expect(ready(project)?.status).toBe('False');
    expect(project?.status?.namespace).toBeUndefined();
    const namespace = await namespaces.get('', name);
    expect(namespace?.metadata?.labels).toEqual({ team: 'someone-else', 'kubernetes.io/metadata.name': name });
    expect(namespace?.metadata?.ownerReferences).toBeUndefined();
    // Deleting that namespace, as the condition advises, sends the controller no event (it is not a
    // project's): the project looks again by itself.
    const before = await recheckCount();
    await vi.waitFor(async () => expect((await recheckCount()) - before).toBeGreaterThanOrEqual(2), { timeout: 5_000 });

    // Deleting the project takes nothing of the namespace's with it.
    await projects.delete('', name);
    await eventually(
      'project gone',
      () => projects.get('', name),
      (p) => p === undefined,
    );
    expect((await namespaces.get('', name))?.metadata?.deletionTimestamp).toBeUndefined();
  });
});
