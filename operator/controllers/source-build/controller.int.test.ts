// The SourceBuild controller in this process against the real apiserver and MinIO, with a switch that makes the
// artifact bucket unreachable: a build whose start keeps failing for the platform's sake says why while it is
// retried, resumes when the bucket is back, and fails once it could not start within its deadline from its push (a
// day; seconds here), where it stayed "building" for ever. And an app's older finished builds keep only the end of
// their logs, also when the operator restarted before trimming them.
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
import { BuildLogWriter, deleteBuildLog } from '../../../src/platform/source-builds/build-log.ts';
import { readWholeBuildLog } from '../../../src/platform/source-builds/follow-build-log.ts';
import { FULL_LOGS_PER_APP, TRIMMED_LOG_BYTES, TRIMMED_LOG_NOTICE } from '../../../src/platform/source-builds/log-retention.ts';
import { DEFAULT_BUILD_LIMITS } from './build-runner.ts';
import { sourceBuildController, type SourceBuildControllerDeps } from './controller.ts';
import { OLDER_SOURCE_BUILDS } from '../../../e2e/harness/older-crds.ts';
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
/** A SourceBuild controller as the operator starts one (a restart: another, with nothing in memory). */
let newController: (options?: Partial<SourceBuildControllerDeps>) => Controller<SourceBuild>;

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
  newController = (options = {}) =>
    sourceBuildController({
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
      ...options,
    });
  controller = newController();
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

function newBuild(app = 'web'): Promise<SourceBuild> {
  const commit = randomBytes(20).toString('hex');
  return client.create({
    metadata: { name: `${app}-${commit.slice(0, 12)}`, namespace: ns.name },
    spec: { app, source: app, context: 'production', repository: 'acme/web', branch: 'main', commit, build: { command: 'true' } },
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

describe('the logs of an app’s older finished builds', { timeout: 90_000 }, () => {
  beforeAll(() => {
    bucket.down = false; // the cases above leave it down
  });
  const failedBuild = async (app: string) => until(await newBuild(app), 'the build ends', (b) => b.status?.state === 'Failed');
  /** As if the build had printed 1 MiB: its log written again, whole. */
  const bigLog = async (build: SourceBuild) => {
    await deleteBuildLog(bucket, ns.name, build.metadata?.name ?? '');
    const log = new BuildLogWriter(bucket, ns.name, build.metadata?.name ?? '');
    for (let i = 0; i < 1024; i++) log.write(`${String(i).padStart(6, '0')} ${'x'.repeat(1016)}\n`);
    await log.finish({ state: 'Failed', message: 'the source is unavailable' });
  };
  const storedBytes = async (build: SourceBuild) =>
    (await bucket.list(`source-builds/${ns.name}/${build.metadata?.name}/log/`)).items.filter((i) => i.key.endsWith('.txt')).reduce((sum, i) => sum + i.size, 0);
  const trimmed = async (build: SourceBuild) => {
    await expect.poll(() => storedBytes(build), { timeout: 20_000, interval: 200 }).toBeLessThanOrEqual(TRIMMED_LOG_BYTES);
    const read = await readWholeBuildLog(bucket, ns.name, build.metadata?.name ?? '');
    expect(read.text.startsWith(TRIMMED_LOG_NOTICE)).toBe(true);
    expect(read.text).toMatch(/001023 x+\n$/);
    expect(read.end?.state).toBe('Failed');
  };

  it(`keep only their end once the app has ${FULL_LOGS_PER_APP} newer finished builds, and a reader is told`, async () => {
    const oldest = await failedBuild('logs');
    await bigLog(oldest);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // creation times have whole seconds
    const newer: SourceBuild[] = [];
    for (let i = 0; i < FULL_LOGS_PER_APP; i++) newer.push(await failedBuild('logs'));
    await trimmed(oldest);
    // The newest five keep theirs whole.
    const next = newer[0] ?? oldest;
    await bigLog(next);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await storedBytes(next)).toBe(1024 * 1024);
  });

  it('are trimmed once each against a SourceBuild CRD older than the operator, which drops the record (upgraded out of order)', async () => {
    // Installed with ours before any test (e2e/harness/older-crds.ts): no status.logTrimmedAt.
    const oldClient = objectClient<SourceBuild>(conn, OLDER_SOURCE_BUILDS);
    const oldBuilds = createInformer<SourceBuild>(conn, OLDER_SOURCE_BUILDS, { namespace: ns.name });
    const registry = new Registry();
    const warnings: string[] = [];
    const old = newController({ builds: oldBuilds, resource: OLDER_SOURCE_BUILDS, registry, log: { ...silentLogger, warn: (msg: string) => void warnings.push(msg) } });
    oldBuilds.start();
    await old.start();
    const reconciles = async () => (await registry.getSingleMetric('controller_runtime_reconcile_total')?.get())?.values.reduce((sum, v) => sum + v.value, 0) ?? 0;
    const failed = async () => {
      const commit = randomBytes(20).toString('hex');
      const created = await oldClient.create({
        metadata: { name: `old-${commit.slice(0, 12)}`, namespace: ns.name },
        spec: { app: 'old', source: 'old', context: 'production', repository: 'acme/web', branch: 'main', commit, build: { command: 'true' } },
      });
      const { met } = await waitFor(oldBuilds, `${ns.name}/${created.metadata?.name}`, (b) => b?.status?.state === 'Failed', 30_000);
      expect(met, 'the build ends').toBe(true);
      return created;
    };
    try {
      const made: SourceBuild[] = [];
      for (let i = 0; i <= FULL_LOGS_PER_APP; i++) {
        const build = await failed();
        made.push(build);
        if (i < 3) await bigLog(build); // ordered by their ends, which have milliseconds
      }
      const [oldest, second, third] = made;
      if (!oldest || !second || !third) throw new Error('no builds');
      const logTrimmed = (build: SourceBuild) =>
        expect.poll(async () => (await readWholeBuildLog(bucket, ns.name, build.metadata?.name ?? '')).text.startsWith(TRIMMED_LOG_NOTICE), { timeout: 20_000, interval: 200 }).toBe(true);
      await logTrimmed(oldest);
      expect((await oldClient.get(ns.name, oldest.metadata?.name ?? ''))?.status?.logTrimmedAt).toBeUndefined(); // dropped by the apiserver
      expect(warnings.filter((m) => m.includes('SourceBuild CRD is older'))).toHaveLength(1);
      // Two past builds now: each trimmed one enqueued the other again, for good, with nothing to do. An eighth
      // build's end, trimming the third's log, costs a handful of reconciles (3 here, against 33 with that loop).
      await failed();
      await logTrimmed(second);
      const before = await reconciles();
      await failed();
      await logTrimmed(third);
      const spent = (await reconciles()) - before;
      expect(spent, `reconciles while an eighth build ran and a third log was trimmed: ${spent}`).toBeLessThan(15);
    } finally {
      await old.stop();
      oldBuilds.stop();
    }
  });

  it('are trimmed after an operator restart, whatever the last process did', async () => {
    const oldest = await failedBuild('restart');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    for (let i = 0; i < FULL_LOGS_PER_APP; i++) await failedBuild('restart');
    // Trimmed and recorded: a restart lists its log no more.
    await expect.poll(async () => (await client.get(ns.name, oldest.metadata?.name ?? ''))?.status?.logTrimmedAt, { timeout: 20_000, interval: 200 }).toBeTruthy();
    await controller.stop();
    // Its log whole again and the record gone while no operator runs: as if the last one had stopped between the two.
    await bigLog(oldest);
    await client.patchStatus(ns.name, oldest.metadata?.name ?? '', { status: { logTrimmedAt: null } });
    controller = newController();
    await controller.start();
    await trimmed(oldest);
  });
});
