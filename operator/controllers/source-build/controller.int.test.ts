// The SourceBuild controller in this process against the real apiserver and MinIO, with a switch that makes the
// artifact bucket unreachable: a build whose start keeps failing for the platform's sake says why while it is
// retried, resumes when the bucket is back, and fails once it could not start within its deadline from its push (a
// day; seconds here), where it stayed "building" for ever.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Registry } from 'prom-client';
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import type { Project } from '../../../src/apis/v1alpha1/project.ts';
import type { Repository } from '../../../src/apis/v1alpha1/repository.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import type { SourceBuild } from '../../../src/apis/v1alpha1/source-build.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { createInformer, eventWriter, objectClient, waitFor, type Informer } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { S3UrlSigner } from '../../../src/object-store/s3-presigned-urls.ts';
import { SwitchableObjectStore } from '../../../src/object-store/testing/switchable-object-store.ts';
import { AppStore } from '../../../src/platform/app-store.ts';
import { BuildCatalog } from '../../../src/platform/builds.ts';
import { BUILDS, PROJECTS, REPOSITORIES, RUNTIME_APPS, SOURCE_BUILDS } from '../../../src/platform/resources.ts';
import { RepoStore } from '../../../src/repo-store/index.ts';
import { DEFAULT_BUILD_LIMITS } from './build-runner.ts';
import { sourceBuildController } from './controller.ts';
import { LocalBuildRunner } from './local-runner.ts';
import { SourceExporter } from './source-export.ts';

/** How long after its push a build that could not start fails (a day by default). */
const START_DEADLINE_MS = 6_000;

const conn = testConnection();
const client = objectClient<SourceBuild>(conn, SOURCE_BUILDS);
const bucket = new SwitchableObjectStore(new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') }));
let ns: { name: string; remove: () => Promise<void> };
let workDir: string;
const informers: Array<Informer<never>> = [];
let controller: Controller<SourceBuild>;
let builds: Informer<SourceBuild>;

beforeAll(async () => {
  ns = await testNamespace(conn, 'srcbuild');
  workDir = await mkdtemp(join(tmpdir(), 'srcbuild-'));
  const scope = { namespace: ns.name };
  builds = createInformer<SourceBuild>(conn, SOURCE_BUILDS, scope);
  const repositories = createInformer<Repository>(conn, REPOSITORIES, scope);
  const apps = createInformer<RuntimeApp>(conn, RUNTIME_APPS, scope);
  const stored = createInformer<Build>(conn, BUILDS, scope);
  const projects = createInformer<Project>(conn, PROJECTS);
  informers.push(...([builds, repositories, apps, stored, projects] as Array<Informer<never>>));
  controller = sourceBuildController({
    kube: conn,
    builds,
    repositories,
    projects,
    runner: new LocalBuildRunner({ workDir: join(workDir, 'runs') }),
    exporter: new SourceExporter({ repos: new RepoStore({ store: bucket }), artifacts: bucket, workDir: join(workDir, 'sources') }),
    artifacts: bucket,
    urls: new S3UrlSigner({ config: inject('s3'), bucket: inject('bucket') }),
    catalog: new BuildCatalog(new AppStore(conn, apps, stored), { baseDomain: 'apps.test', artifacts: bucket }),
    limits: DEFAULT_BUILD_LIMITS,
    startDeadlineMs: START_DEADLINE_MS,
    events: new EventRecorder({ writer: eventWriter(conn), component: 'sourcebuild-test' }),
    registry: new Registry(),
    log: silentLogger,
  });
  for (const informer of informers) informer.start();
  await controller.start();
});

afterAll(async () => {
  bucket.down = false;
  await controller?.stop();
  for (const informer of informers) informer.stop();
  await ns?.remove();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

function newBuild(): Promise<SourceBuild> {
  const commit = randomBytes(20).toString('hex');
  return client.create({
    metadata: { name: `web-${commit.slice(0, 12)}`, namespace: ns.name },
    spec: { app: 'web', source: 'web', context: 'production', repository: 'acme/web', branch: 'main', commit, build: { command: 'true' } },
  });
}

async function until(build: SourceBuild, what: string, done: (b: SourceBuild) => boolean): Promise<SourceBuild> {
  const { object, met } = await waitFor(builds, `${ns.name}/${build.metadata?.name}`, (b) => b !== undefined && done(b), 30_000);
  if (!met || !object) throw new Error(`timed out waiting until ${what}; the build's status: ${JSON.stringify(object?.status)}`);
  return object;
}

const RETRYING = "could not start yet, retrying: the platform's object store is unavailable";

describe('a SourceBuild whose start keeps failing', { timeout: 60_000 }, () => {
  it('says why while it is retried, and goes on once the bucket is back', async () => {
    bucket.down = true;
    const build = await newBuild();
    const retrying = await until(build, 'the build says why it has not started', (b) => b.status?.message === RETRYING);
    expect(retrying.status?.state).toBe('Building');
    expect(findCondition(retrying.status?.conditions, 'Ready')?.message).toBe(RETRYING);

    bucket.down = false;
    // Started again: it gets as far as its source, which this project does not have (no Repository acme/web).
    const failed = await until(build, 'the build goes past its start', (b) => b.status?.state === 'Failed');
    expect(failed.status).toMatchObject({ reason: 'SourceUnavailable' });
    expect(failed.status?.message).toContain('acme/web');
  });

  it('fails once it could not start within its deadline from its push, also when its log cannot be written', async () => {
    bucket.down = true;
    const build = await newBuild();
    await until(build, 'the build says why it has not started', (b) => b.status?.message === RETRYING);
    const failed = await until(build, 'the build fails', (b) => b.status?.state === 'Failed');
    expect(failed.status).toMatchObject({
      reason: 'RunnerFailed',
      message: "the build could not start within 6 s of its push: the platform's object store is unavailable",
    });
    expect(failed.status?.finishedAt).toBeDefined();
    expect(findCondition(failed.status?.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'RunnerFailed' });
    // Not before its deadline (the creation time is in whole seconds).
    expect(Date.parse(failed.status?.finishedAt ?? '') - Date.parse(failed.metadata?.creationTimestamp ?? '')).toBeGreaterThanOrEqual(START_DEADLINE_MS - 1000);
  });
});
