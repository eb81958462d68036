// The SourceBuild controller's slots with the real apiserver, MinIO and local runs: one person's several projects
// share that person's slots (the user who created each project, as cw-api records it on the Project), so two
// projects of one user building `sleep` cannot hold every slot while another user's push waits.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Registry } from 'prom-client';
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import { CREATED_BY_USER_ANNOTATION, type Project } from '../../../src/apis/v1alpha1/project.ts';
import type { Repository } from '../../../src/apis/v1alpha1/repository.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import type { SourceBuild } from '../../../src/apis/v1alpha1/source-build.ts';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { ScratchRepo } from '../../../src/git/testing/scratch-repo.ts';
import { createInformer, eventWriter, objectClient, waitFor, type Informer } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { S3UrlSigner } from '../../../src/object-store/s3-presigned-urls.ts';
import { AppStore } from '../../../src/platform/app-store.ts';
import { BuildCatalog } from '../../../src/platform/builds.ts';
import { BUILDS, PROJECTS, REPOSITORIES, RUNTIME_APPS, SOURCE_BUILDS } from '../../../src/platform/resources.ts';
import { RepoStore, zeroOid } from '../../../src/repo-store/index.ts';
import { DEFAULT_BUILD_LIMITS } from './build-runner.ts';
import { sourceBuildController } from './controller.ts';
import { LocalBuildRunner } from './local-runner.ts';
import { SourceExporter } from './source-export.ts';

const conn = testConnection();
const builds = objectClient<SourceBuild>(conn, SOURCE_BUILDS);
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
const repos = new RepoStore({ store: bucket });
/** Only this file's objects are seen by its controller: the apiserver is shared with other tests. */
const label = { 'cloudwright.test/slots': randomBytes(4).toString('hex') };
const labelSelector = `cloudwright.test/slots=${label['cloudwright.test/slots']}`;
const cleanups: Array<() => Promise<unknown>> = [];
const informers: Array<Informer<never>> = [];
let controller: Controller<SourceBuild>;
let informer: Informer<SourceBuild>;
let work: ScratchRepo;

/** A project of `user`'s (its namespace, its Project as cw-api creates it) with a Ready repository holding one commit. */
async function projectOf(user: string): Promise<{ project: string; commit: string }> {
  const ns = await testNamespace(conn, 'slots');
  const project = ns.name;
  await objectClient<Project>(conn, PROJECTS).create({
    metadata: { name: project, labels: label, annotations: { [CREATED_BY_USER_ANNOTATION]: user } },
    spec: { displayName: project, members: [{ user, role: 'owner' }] },
  });
  cleanups.push(() => objectClient<Project>(conn, PROJECTS).delete('', project), ns.remove);
  const repo = `${project}/site`;
  const { repoId } = await repos.createRepo(repo);
  cleanups.push(() => repos.deleteRepo(repo));
  const commit = await work.commit('main', { 'index.html': `<h1>${project}</h1>\n` });
  const { pack, idx } = await work.pack([commit]);
  const published = await repos.publish(repo, {
    kind: 'push',
    refUpdates: [{ ref: 'refs/heads/main', old: zeroOid('sha1'), new: commit }],
    pusher: user,
    requestId: 'r',
    atomic: true,
    pack: { body: pack, idx },
  });
  expect(published.outcome).toBe('published');
  const repositories = objectClient<Repository>(conn, REPOSITORIES);
  const created = await repositories.create({ metadata: { name: 'site', namespace: project, labels: label }, spec: { owner: project, name: 'site' } });
  // As the Repository controller says it once the repository is in the bucket.
  await repositories.patchStatus(project, 'site', {
    status: {
      observedGeneration: created.metadata?.generation,
      repoId,
      conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: new Date().toISOString(), observedGeneration: created.metadata?.generation }],
    },
  });
  return { project, commit };
}

/** A push of `project`'s whose build runs for a minute (cancelled at the end). */
async function slowBuild({ project, commit }: { project: string; commit: string }): Promise<string> {
  const name = `web-${commit.slice(0, 12)}`;
  await builds.create({
    metadata: { name, namespace: project, labels: label },
    spec: { app: 'web', source: 'web', context: 'production', repository: `${project}/site`, branch: 'main', commit, build: { command: 'sleep 60' } },
  });
  return `${project}/${name}`;
}

async function until(key: string, what: string, done: (b: SourceBuild) => boolean): Promise<SourceBuild> {
  const { object, met } = await waitFor(informer, key, (b) => b !== undefined && done(b), 30_000);
  if (!met || !object) throw new Error(`timed out waiting until ${what}; the build's status: ${JSON.stringify(object?.status)}`);
  return object;
}

beforeAll(async () => {
  work = await ScratchRepo.create('sha1');
  const workDir = await mkdtemp(join(tmpdir(), 'srcbuild-slots-'));
  cleanups.push(
    () => work.remove(),
    () => rm(workDir, { recursive: true, force: true }),
  );
  informer = createInformer<SourceBuild>(conn, SOURCE_BUILDS, { labelSelector });
  const repositories = createInformer<Repository>(conn, REPOSITORIES, { labelSelector });
  const projects = createInformer<Project>(conn, PROJECTS, { labelSelector });
  const apps = createInformer<RuntimeApp>(conn, RUNTIME_APPS, { labelSelector });
  const stored = createInformer<Build>(conn, BUILDS, { labelSelector });
  informers.push(...([informer, repositories, projects, apps, stored] as Array<Informer<never>>));
  controller = sourceBuildController({
    kube: conn,
    builds: informer,
    repositories,
    projects,
    runner: new LocalBuildRunner({ workDir: join(workDir, 'runs') }),
    exporter: new SourceExporter({ repos, artifacts: bucket, workDir: join(workDir, 'sources') }),
    artifacts: bucket,
    urls: new S3UrlSigner({ config: inject('s3'), bucket: inject('bucket') }),
    catalog: new BuildCatalog(new AppStore(conn, apps, stored), { baseDomain: 'apps.test', artifacts: bucket }),
    limits: DEFAULT_BUILD_LIMITS,
    concurrency: { total: 2, perProject: 1, perUser: 1 },
    events: new EventRecorder({ writer: eventWriter(conn), component: 'sourcebuild-slots-test' }),
    registry: new Registry(),
    log: silentLogger,
  });
  for (const each of informers) each.start();
  await controller.start();
}, 60_000);

afterAll(async () => {
  await controller?.stop();
  for (const each of informers) each.stop();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

describe('build slots', { timeout: 90_000 }, () => {
  it('counts the projects one user created together, so two of them cannot hold every slot while another user waits', async () => {
    // One after another: the commits come from one scratch repository.
    const first = await projectOf('mallory');
    const second = await projectOf('mallory');
    const other = await projectOf('victor');
    const firstBuild = await slowBuild(first);
    await until(firstBuild, 'the first build of mallory runs', (b) => b.status?.state === 'Building' && b.status.message === 'building');
    const secondBuild = await slowBuild(second);
    await until(secondBuild, 'mallory’s second project’s build waits', (b) => b.status?.state === 'Queued');
    // The free slot goes to another user's push, not to mallory's second project.
    const otherBuild = await slowBuild(other);
    await until(otherBuild, 'victor’s build runs', (b) => b.status?.state === 'Building');
    expect(informer.get(secondBuild)?.status).toMatchObject({ state: 'Queued', message: 'waiting for a build slot' });

    // Her first build ends (cancelled): her second takes its slot.
    const [namespace, name] = firstBuild.split('/') as [string, string];
    await builds.patch(namespace, name, { spec: { cancelled: true } });
    await until(firstBuild, 'her first build is cancelled', (b) => b.status?.state === 'Cancelled');
    await until(secondBuild, 'her second build runs', (b) => b.status?.state === 'Building');
    for (const key of [secondBuild, otherBuild]) {
      const [ns, build] = key.split('/') as [string, string];
      await builds.patch(ns, build, { spec: { cancelled: true } });
      await until(key, 'the build is cancelled', (b) => b.status?.state === 'Cancelled');
    }
  });
});
