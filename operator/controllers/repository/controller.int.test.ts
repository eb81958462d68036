// The Repository controller in this process against the real apiserver and MinIO, with a switch that makes
// the object store unreachable: creation, refresh, name conflicts, adoption rules, lost repositories,
// deletion (also while the store is down), and the maintenance state (packs, fsck, the Healthy condition).
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import { ADOPT_REPO_ID_ANNOTATION, REPOSITORY_FINALIZER, type Repository } from '../../../src/apis/v1alpha1/repository.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { createInformer, eventWriter, objectClient, waitFor, type Informer } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { SwitchableObjectStore } from '../../../src/object-store/testing/switchable-object-store.ts';
import { REPOSITORIES } from '../../../src/platform/resources.ts';
import { emptyStatus, writeStatus, type FsckRecord } from '../../../src/repo-maintenance/index.ts';
import { RepoNotFoundError, RepoStore, maintenanceStatusKey, parseRepoPath } from '../../../src/repo-store/index.ts';
import { Z, newRepoName, oid, smallPack, update } from '../../../src/repo-store/testing/repo-store-scenarios.ts';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { objectKeys } from '../../../git-server/repositories/testing/repository-directory-contract.ts';
import { repositoryController } from './controller.ts';

const conn = testConnection();
const client = objectClient<Repository>(conn, REPOSITORIES);
const objects = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
const switchable = new SwitchableObjectStore(new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') }));
const repos = new RepoStore({ store: objects }); // the test's own view of the bucket
let ns: { name: string; remove: () => Promise<void> };
let informer: Informer<Repository>;
let controller: Controller<Repository>;
const registry = new Registry();
/** The project the test namespace belongs to, as its label would say; none unless a test sets it. */
let namespaceProject: string | undefined;
/** Reconciles that asked to look again later: each refresh of a repository that is in the bucket is one. */
const refreshCount = async () => (await registry.getSingleMetric('controller_runtime_reconcile_total')?.get())?.values.find((v) => v.labels.result === 'requeue_after')?.value ?? 0;

beforeAll(async () => {
  ns = await testNamespace(conn, 'repoctl');
  informer = createInformer<Repository>(conn, REPOSITORIES, { namespace: ns.name });
  controller = repositoryController({
    kube: conn,
    repositories: informer,
    store: { repos: new RepoStore({ store: switchable, registry }), objects: switchable },
    events: new EventRecorder({ writer: eventWriter(conn), component: 'repository-test' }),
    registry,
    log: silentLogger,
    refreshMs: 300,
    projectOfNamespace: (namespace) => (namespace === ns.name ? namespaceProject : undefined),
  });
  informer.start();
  await controller.start();
});

afterAll(async () => {
  switchable.down = false;
  // Let the controller run the finalizers of what is left, then stop it.
  for (const r of (await client.list(ns.name)).items) await client.delete(ns.name, r.metadata?.name ?? '');
  await vi.waitFor(async () => expect((await client.list(ns.name)).items).toEqual([]), { timeout: 15_000 }).catch(() => {});
  await controller?.stop();
  informer?.stop();
  await ns?.remove();
});

function resource(name: string, full: string, extra: Partial<Repository['metadata']> = {}, defaultBranch?: string): Repository {
  const { owner, name: repo } = parseRepoPath(full);
  return { metadata: { name, namespace: ns.name, ...extra }, spec: { owner, name: repo, ...(defaultBranch ? { defaultBranch } : {}) } };
}

/** Waits until the resource's Ready condition has `reason` for its current generation; returns the resource. */
async function readyReason(name: string, reason: string, timeout = 15_000): Promise<Repository> {
  return vi.waitFor(
    async () => {
      const r = await client.get(ns.name, name);
      const ready = findCondition(r?.status?.conditions, 'Ready');
      expect({ reason: ready?.reason, generation: ready?.observedGeneration }).toEqual({ reason, generation: r?.metadata?.generation });
      return r as Repository;
    },
    { timeout, interval: 50 },
  );
}

/** Waits, on the watch's events, until the resource's status satisfies `holds`; returns the resource. */
async function statusWhere(name: string, holds: (status: NonNullable<Repository['status']>) => boolean, timeout = 15_000): Promise<Repository> {
  const { object, met } = await waitFor(informer, `${ns.name}/${name}`, (r) => r?.status !== undefined && holds(r.status), timeout);
  expect(met, `status of ${name}: ${JSON.stringify(object?.status)}`).toBe(true);
  return object as Repository;
}

const healthy = (status: NonNullable<Repository['status']>) => findCondition(status.conditions, 'Healthy');

/** What a maintainer writes after a git fsck of `seq` (src/repo-maintenance/status.ts). */
async function recordFsck(full: string, repoId: string, seq: number, missingObjects: number): Promise<FsckRecord> {
  const fsck: FsckRecord = { at: '2030-01-02T03:04:05.678Z', seq, outcome: 'succeeded', missingObjects, problems: missingObjects ? ['missing blob 0b7d'] : [] };
  await writeStatus(objects, parseRepoPath(full), { ...emptyStatus(repoId), fsck });
  return fsck;
}

async function gone(name: string): Promise<void> {
  await vi.waitFor(async () => expect(await client.get(ns.name, name)).toBeUndefined(), { timeout: 15_000, interval: 50 });
}

describe('Repository controller', { timeout: 60_000 }, () => {
  it('creates the repository in the bucket, reports it Ready and pristine, and follows pushes', async () => {
    const full = newRepoName();
    await client.create(resource('created', full, {}, 'trunk'));
    const ready = await readyReason('created', 'Available');
    const head = await repos.readHead(full);
    expect(head).toMatchObject({ seq: 0, headRef: 'refs/heads/trunk' });
    expect(ready.status).toMatchObject({ repoId: head.repoId, headSeq: '0', pristine: true });
    expect(ready.metadata?.finalizers).toContain(REPOSITORY_FINALIZER);
    expect(findCondition(ready.status?.conditions, 'Ready')).toMatchObject({ status: 'True', message: `Repository ${full} is in the bucket and served at /${full}.` });

    await repos.publish(full, update([{ ref: 'refs/heads/trunk', old: Z, new: oid('c1') }]));
    await vi.waitFor(async () => expect((await client.get(ns.name, 'created'))?.status).toMatchObject({ headSeq: '1', pristine: false }), { timeout: 10_000 });
    // The refresh writes nothing while nothing changes: two more refreshes of it (the only resource yet) later.
    const settled = await client.get(ns.name, 'created');
    const refreshes = await refreshCount();
    await vi.waitFor(async () => expect((await refreshCount()) - refreshes).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    expect((await client.get(ns.name, 'created'))?.metadata?.resourceVersion).toBe(settled?.metadata?.resourceVersion);
  });

  it('lets one resource hold a name; the other reports NameConflict and takes over once the holder is deleted', async () => {
    const full = newRepoName();
    await client.create(resource('holder', full));
    const holder = await readyReason('holder', 'Available');
    await client.create(resource('second', full));
    const second = await readyReason('second', 'NameConflict');
    expect(findCondition(second.status?.conditions, 'Ready')).toMatchObject({ status: 'False', message: expect.stringContaining(`${ns.name}/holder`) });
    expect(second.status?.repoId).toBeUndefined();
    expect(second.metadata?.finalizers ?? []).not.toContain(REPOSITORY_FINALIZER);
    expect((await repos.readHead(full)).repoId).toBe(holder.status?.repoId);

    await repos.publish(full, update([{ ref: 'refs/heads/main', old: Z, new: oid('h1') }]));
    await client.delete(ns.name, 'holder');
    await gone('holder');
    const taken = await readyReason('second', 'Available');
    const head = await repos.readHead(full);
    expect(taken.status).toMatchObject({ repoId: head.repoId, pristine: true });
    expect(head.repoId).not.toBe(holder.status?.repoId); // a new, empty incarnation: the holder's data went with it
    expect(head.seq).toBe(0);
  });

  it('in a project’s namespace, creates only repositories of the project’s owner: another owner’s is refused and creates nothing', async () => {
    const squatted = parseRepoPath(newRepoName());
    namespaceProject = `p${squatted.owner.replace(/[^a-z0-9]/g, '').slice(-20)}`;
    try {
      await client.create(resource('squatter', squatted.full));
      const refused = await readyReason('squatter', 'OwnerNotAllowed');
      expect(findCondition(refused.status?.conditions, 'Ready')).toMatchObject({
        status: 'False',
        message: `This namespace is project ${namespaceProject}'s: its repositories are ${namespaceProject}/<name>, not ${squatted.full}. Nothing was created; use owner ${namespaceProject}.`,
      });
      expect(refused.metadata?.finalizers ?? []).not.toContain(REPOSITORY_FINALIZER);
      await expect(repos.readHead(squatted.full)).rejects.toBeInstanceOf(RepoNotFoundError);
      const own = `${namespaceProject}/site`;
      await client.create(resource('own', own));
      const held = await readyReason('own', 'Available');
      expect((await repos.readHead(own)).repoId).toBe(held.status?.repoId);
      await client.delete(ns.name, 'own');
      await gone('own');
    } finally {
      namespaceProject = undefined;
    }
    // Outside a project's namespace any owner goes again (the refused resource is re-checked on its refresh).
    await readyReason('squatter', 'Available');
  });

  it('adopts a pristine repository nobody claimed, but not one with data unless the annotation names it', async () => {
    const pristine = newRepoName();
    const created = await repos.createRepo(pristine);
    await client.create(resource('pristine', pristine));
    expect((await readyReason('pristine', 'Available')).status?.repoId).toBe(created.repoId);

    const used = newRepoName();
    const existing = await repos.createRepo(used);
    await repos.publish(used, update([{ ref: 'refs/heads/main', old: Z, new: oid('u1') }]));
    await client.create(resource('used', used));
    const refused = await readyReason('used', 'RepositoryExists');
    expect(findCondition(refused.status?.conditions, 'Ready')?.message).toContain(`${ADOPT_REPO_ID_ANNOTATION}=${existing.repoId}`);
    // Deleting a resource that claimed nothing deletes nothing.
    await client.delete(ns.name, 'used');
    await gone('used');
    expect((await repos.readHead(used)).seq).toBe(1);

    await client.create(resource('adopter', used, { annotations: { [ADOPT_REPO_ID_ANNOTATION]: existing.repoId } }));
    expect((await readyReason('adopter', 'Available')).status).toMatchObject({ repoId: existing.repoId, headSeq: '1', pristine: false });
    await client.delete(ns.name, 'adopter');
    await gone('adopter');
    await expect(repos.readHead(used)).rejects.toBeInstanceOf(RepoNotFoundError);
    expect(await objectKeys(objects, used)).toEqual([]);
  });

  it('reports a repository deleted behind its back as lost instead of recreating it, and cleans up on delete', async () => {
    const full = newRepoName();
    await client.create(resource('lost', full));
    const held = await readyReason('lost', 'Available');
    await repos.deleteRepo(full);
    const lost = await readyReason('lost', 'RepositoryLost');
    expect(lost.status?.repoId).toBe(held.status?.repoId);
    await expect(repos.readHead(full)).rejects.toBeInstanceOf(RepoNotFoundError);
    await client.delete(ns.name, 'lost');
    await gone('lost');
  });

  it('reports an unreachable store, retries, and deletes the data only once the store answers again', async () => {
    const full = newRepoName();
    switchable.down = true;
    try {
      await client.create(resource('flaky', full));
      const waiting = await readyReason('flaky', 'StoreUnavailable');
      expect(findCondition(waiting.status?.conditions, 'Ready')).toMatchObject({ status: 'Unknown', message: 'The object store cannot be reached; retrying.' });
    } finally {
      switchable.down = false;
    }
    await readyReason('flaky', 'Available');
    await repos.publish(full, update([{ ref: 'refs/heads/main', old: Z, new: oid('f1') }]));

    switchable.down = true;
    try {
      await client.delete(ns.name, 'flaky');
      const stuck = await readyReason('flaky', 'StoreUnavailable');
      expect(stuck.metadata?.deletionTimestamp).toBeDefined();
      expect(findCondition(stuck.status?.conditions, 'Ready')?.message).toMatch(/^Deleting the bucket data of .* failed: the object store cannot be reached; retrying\.$/);
      expect((await repos.readHead(full)).seq).toBe(1);
    } finally {
      switchable.down = false;
    }
    await gone('flaky');
    expect(await objectKeys(objects, full)).toEqual([]);
  });

  it('shows packs and the head seq after a publish, and a clean fsck as Healthy', async () => {
    const full = newRepoName();
    await client.create(resource('maintained', full));
    const created = await statusWhere('maintained', (s) => healthy(s)?.status === 'True');
    expect(created.status).toMatchObject({ headSeq: '0', packs: 0, packBytes: 0 });
    expect(healthy(created.status ?? {})).toMatchObject({ reason: 'Healthy', observedGeneration: created.metadata?.generation });

    const pack = smallPack();
    await repos.publish(full, update([{ ref: 'refs/heads/main', old: Z, new: oid('m1') }], { kind: 'push', pack }));
    await statusWhere('maintained', (s) => s.headSeq === '1' && s.packs === 1 && s.packBytes === pack.body.length);

    await recordFsck(full, created.status?.repoId ?? '', 1, 0);
    const checked = await statusWhere('maintained', (s) => s.lastFsck !== undefined);
    expect(checked.status?.lastFsck).toEqual({ time: '2030-01-02T03:04:05Z', seq: '1', outcome: 'succeeded', missingObjects: 0 });
    expect(healthy(checked.status ?? {})).toMatchObject({ status: 'True', reason: 'Healthy' });
  });

  it('reports missing objects as Healthy False, Error, naming the count, without touching Ready; a clean fsck heals it', async () => {
    const full = newRepoName();
    await client.create(resource('damaged', full));
    const held = await readyReason('damaged', 'Available');
    const repoId = held.status?.repoId ?? '';

    await recordFsck(full, repoId, 0, 3);
    const damaged = await statusWhere('damaged', (s) => healthy(s)?.status === 'False');
    expect(healthy(damaged.status ?? {})).toMatchObject({ reason: 'Error', message: expect.stringContaining('found 3 missing objects') });
    expect(damaged.status?.lastFsck).toMatchObject({ missingObjects: 3, seq: '0' });
    expect(findCondition(damaged.status?.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'Available' });

    await recordFsck(full, repoId, 0, 0);
    await statusWhere('damaged', (s) => healthy(s)?.status === 'True' && s.lastFsck?.missingObjects === 0);
  });

  it('reports a maintenance status it cannot read as Healthy Unknown, and Ready stays True', async () => {
    const full = newRepoName();
    await client.create(resource('torn', full));
    await readyReason('torn', 'Available');
    await objects.put(maintenanceStatusKey(parseRepoPath(full)), '{"schema":1,"repoId":', { contentType: 'application/json' });
    const torn = await statusWhere('torn', (s) => healthy(s)?.status === 'Unknown');
    expect(healthy(torn.status ?? {})).toMatchObject({ reason: 'StoreError', message: expect.stringMatching(/cannot be read \(CorruptObjectError\)/) });
    expect(findCondition(torn.status?.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'Available' });
  });
});
