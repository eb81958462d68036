// Vitest global setup for the `integration` project: one real control plane, MinIO and moto per test run,
// with the CRDs installed and a bucket of the run's own. Tests read what they need with `inject(...)`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { S3Config } from '../../src/object-store/s3-config.ts';
import { startControlPlane } from './control-plane.ts';
import { installCrds } from './install-crds.ts';
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

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stateDir = mkdtempSync(join(tmpdir(), 'cw-test-'));
  const stops: (() => Promise<void>)[] = [];
  const teardown = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    if (!process.env.CW_KEEP_TEST_STATE) rmSync(stateDir, { recursive: true, force: true });
  };
  try {
    const [cluster, minio, moto] = await Promise.all([
      startControlPlane({ stateDir, throwaway: true }).then((c) => (stops.push(() => c.stop()), c)),
      startMinio(stateDir).then((m) => (stops.push(() => m.service.stop()), m)),
      startMoto(stateDir).then((m) => (stops.push(() => m.service.stop()), m)),
    ]);
    await installCrds(cluster.kubeconfig);
    project.provide('kubeconfig', cluster.kubeconfig);
    project.provide('s3', minio.s3);
    project.provide('bucket', await createRunBucket(minio, 'cw-test'));
    project.provide('route53Endpoint', moto.endpoint);
    project.provide('stateDir', stateDir);
  } catch (err) {
    await teardown();
    throw err;
  }
  return teardown;
}
