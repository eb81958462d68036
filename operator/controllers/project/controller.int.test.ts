// The Project controller in this process against the real apiserver: a project gets a namespace of its own,
// owned through an owner reference, and a namespace that already exists under the project's name is never
// adopted (else deleting the project would let the garbage collector delete someone else's namespace).
// The controller sees only this file's Projects (a label of their own), so other tests' projects are left alone.
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Project } from '../../../src/apis/v1alpha1/project.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { API_VERSION, createInformer, objectClient, type Informer, type KubeObject } from '../../../src/kube/index.ts';
import { testConnection } from '../../../src/kube/testing/test-kube.ts';
import { NAMESPACES, PROJECT_LABEL, PROJECTS } from '../../../src/platform/resources.ts';
import { eventually } from '../../../e2e/harness/runtime-stack.ts';
import type { Controller } from '../../controller-runtime/controller.ts';
import { silentLogger } from '../../controller-runtime/log.ts';
import { projectController } from './controller.ts';

const conn = testConnection();
const projects = objectClient<Project>(conn, PROJECTS);
const namespaces = objectClient<KubeObject>(conn, NAMESPACES);
const RUN_LABEL = 'test.cloudwright.dev/project-controller';
const run = randomBytes(4).toString('hex');
const created: string[] = [];
let informers: { projects: Informer<Project>; namespaces: Informer<KubeObject> };
let controller: Controller<Project>;
const registry = new Registry();
/** Reconciles of the project controller that asked to look again later. */
const recheckCount = async () =>
  (await registry.getSingleMetric('controller_runtime_reconcile_total')?.get())?.values.find((v) => v.labels.controller === 'project' && v.labels.result === 'requeue_after')?.value ?? 0;

beforeAll(async () => {
  informers = {
    projects: createInformer<Project>(conn, PROJECTS, { labelSelector: `${RUN_LABEL}=${run}` }),
    namespaces: createInformer<KubeObject>(conn, NAMESPACES, { labelSelector: PROJECT_LABEL }),
  };
  controller = projectController({ kube: conn, ...informers, registry, log: silentLogger, conflictRecheckMs: 200 });
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
