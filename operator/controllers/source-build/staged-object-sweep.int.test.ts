// The sweep of builds' staged objects against the real apiserver's SourceBuilds and the run's MinIO bucket: what a
// signed URL wrote after its build finished, or after its SourceBuild was deleted, goes; a running build's objects
// and a finished build's log stay.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SourceBuild } from '../../../src/apis/v1alpha1/source-build.ts';
import { createInformer, objectClient, waitFor, type Informer } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { listAll } from '../../../src/object-store/list-all.ts';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { buildObjectsPrefix } from '../../../src/platform/source-builds/build-log.ts';
import { SOURCE_BUILDS } from '../../../src/platform/resources.ts';
import { outputKey, sourceKey } from './source-export.ts';
import { StagedObjectSweep } from './staged-object-sweep.ts';

const conn = testConnection();
const client = objectClient<SourceBuild>(conn, SOURCE_BUILDS);
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
let ns: { name: string; remove: () => Promise<void> };
let builds: Informer<SourceBuild>;

beforeAll(async () => {
  ns = await testNamespace(conn, 'staged');
  builds = createInformer<SourceBuild>(conn, SOURCE_BUILDS, { namespace: ns.name });
  builds.start();
  await builds.waitForSync(AbortSignal.timeout(30_000));
});

afterAll(async () => {
  builds?.stop();
  await ns?.remove();
});

/** A SourceBuild in `state` (none: not started), as the cache has it. */
async function sourceBuild(name: string, state?: 'Building' | 'Succeeded'): Promise<void> {
  const commit = randomBytes(20).toString('hex');
  await client.create({
    metadata: { name, namespace: ns.name },
    spec: { app: 'web', source: 'web', context: 'production', repository: 'acme/web', branch: 'main', commit, build: { command: 'true' } },
  });
  if (state) await client.patchStatus(ns.name, name, { status: { state } });
  const { met } = await waitFor(builds, `${ns.name}/${name}`, (b) => b !== undefined && b.status?.state === state, 30_000);
  expect(met).toBe(true);
}

async function stored(build: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of listAll(bucket, buildObjectsPrefix(ns.name, build))) keys.push(object.key.slice(buildObjectsPrefix(ns.name, build).length));
  return keys.sort();
}

const put = (key: string) => bucket.put(key, new TextEncoder().encode(key));

describe('the sweep of staged build objects', () => {
  it('deletes what a signed URL wrote after its build finished or its SourceBuild went, and nothing a build still needs', async () => {
    await sourceBuild('web-running', 'Building');
    await sourceBuild('web-done', 'Succeeded');
    for (const build of ['web-running', 'web-done', 'web-deleted']) {
      await put(outputKey(ns.name, build));
      await put(sourceKey(ns.name, build));
      await put(`${buildObjectsPrefix(ns.name, build)}00000000.txt`);
    }
    // Another namespace's log, which this cache (of one namespace, as CW_WATCH_NAMESPACE scopes it) cannot see.
    const elsewhere = `${buildObjectsPrefix(`${ns.name}-other`, 'web-1')}00000000.txt`;
    await put(elsewhere);
    // Written a moment ago, so a SourceBuild the cache has not seen yet is not taken for one gone: not yet.
    await new StagedObjectSweep({ builds, namespace: ns.name, artifacts: bucket, log: silentLogger }).sweepOnce();
    expect(await stored('web-deleted')).toHaveLength(3);
    // Later: the objects of the SourceBuild that is gone go, and the finished one's staged source and output.
    await new StagedObjectSweep({ builds, namespace: ns.name, artifacts: bucket, log: silentLogger, now: () => Date.now() + 10 * 60_000 }).sweepOnce();
    expect(await stored('web-deleted')).toEqual([]);
    // Not another namespace's: it swept every test's builds in the shared bucket, and would an operator confined to one namespace.
    expect(await bucket.head(elsewhere)).toBeDefined();
    await bucket.delete(elsewhere);
    expect(await stored('web-done')).toEqual(['00000000.txt']);
    expect(await stored('web-running')).toEqual(['00000000.txt', 'output.tar', 'source.tar.gz']);
  });
});
