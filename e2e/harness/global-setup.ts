// Vitest global setup for the integration projects: one real control plane, MinIO and moto per test run,
// with the CRDs installed and a bucket of the run's own. Tests read what they need with `inject(...)`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { S3Config } from '../../src/object-store/s3-config.ts';
import { startControlPlane } from './control-plane.ts';
import { waitForGarbageCollector } from './garbage-collector.ts';
import { installCrds } from './install-crds.ts';
import { olderCrds } from './older-crds.ts';
import { createRunBucket, startMinio } from './minio.ts';
import { startMoto } from './moto.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
    s3: S3Config;
    bucket: string;
    route53Endpoint: string;
    stateDir: string;
  }
}

/** What the run's environment provides to the tests, and how to stop it. */
interface Environment {
  readonly provided: { kubeconfig: string; s3: S3Config; bucket: string; route53Endpoint: string; stateDir: string };
  teardown(): Promise<void>;
}

/**
 * Both integration projects (the one run in parallel and the one measured alone, vitest.config.ts) use this
 * setup; vitest calls it once per project, in one process, so the environment is kept on `globalThis` and
 * started once, then stopped by the last project to finish.
 */
interface SharedEnvironment {
  started?: Promise<Environment>;
  users: number;
}
const SHARED = Symbol.for('cloudwright.test-environment');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const holder = globalThis as { [SHARED]?: SharedEnvironment };
  const shared = (holder[SHARED] ??= { users: 0 });
  shared.users++;
  shared.started ??= startEnvironment();
  const environment = await shared.started;
  const { kubeconfig, s3, bucket, route53Endpoint, stateDir } = environment.provided;
  project.provide('kubeconfig', kubeconfig);
  project.provide('s3', s3);
  project.provide('bucket', bucket);
  project.provide('route53Endpoint', route53Endpoint);
  project.provide('stateDir', stateDir);
  return async () => {
    if (--shared.users > 0) return;
    shared.started = undefined;
    await environment.teardown();
  };
}

async function startEnvironment(): Promise<Environment> {
  const stateDir = mkdtempSync(join(tmpdir(), 'cw-test-'));
  const stops: (() => Promise<void>)[] = [];
  const teardown = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    if (!process.env.CW_KEEP_TEST_STATE) rmSync(stateDir, { recursive: true, force: true });
  };
  try {
    const [cluster, minio, moto] = await Promise.all([
      startControlPlane({ stateDir, throwaway: true, holdControllers: true }).then((c) => (stops.push(() => c.stop()), c)),
      startMinio(stateDir).then((m) => (stops.push(() => m.service.stop()), m)),
      startMoto(stateDir).then((m) => (stops.push(() => m.service.stop()), m)),
    ]);
    await installCrds(cluster.kubeconfig, undefined, olderCrds());
    // Every CRD known to the garbage collector from its start: no wait for its first rediscovery (30 s).
    cluster.startControllers?.();
    // Both before any test: one may delete an owner and wait for the collector to delete what it owned.
    const [bucket] = await Promise.all([createRunBucket(minio, 'cw-test'), waitForGarbageCollector(cluster.kubeconfig)]);
    return { provided: { kubeconfig: cluster.kubeconfig, s3: minio.s3, bucket, route53Endpoint: moto.endpoint, stateDir }, teardown };
  } catch (err) {
    await teardown();
    throw err;
  }
}
