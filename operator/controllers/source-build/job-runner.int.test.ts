// The Job runner against the real apiserver: a build whose environment makes a Job the apiserver refuses fails at
// once, saying which variable, instead of being retried for a day as a platform fault.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import type { RunResult } from './build-runner.ts';
import { DEFAULT_BUILD_LIMITS } from './build-runner.ts';
import { JobRunner } from './job-runner.ts';

const conn = testConnection();
let ns: { name: string; remove: () => Promise<void> };
let runner: JobRunner;

beforeAll(async () => {
  ns = await testNamespace(conn, 'jobrun');
  runner = new JobRunner({
    conn,
    settings: { namespace: ns.name, image: 'localhost/cloudwright:test', serviceAccountName: 'default', runAsUser: 10001, ttlSecondsAfterFinished: 60 },
    log: silentLogger,
  });
});
afterAll(async () => {
  runner?.close();
  await ns?.remove();
});

describe('JobRunner', () => {
  it('fails a build at once when the apiserver refuses its Job for what the build asks, naming the variable and quoting no value', async () => {
    let finished: (result: RunResult) => void = () => {};
    const result = new Promise<RunResult>((resolve) => (finished = resolve));
    // A rejection would be retried as a platform fault, the very thing that must not happen here.
    await runner.run(
      {
        id: 'refused-1',
        namespace: 'p-acme',
        build: 'refused',
        sourceUrl: 'http://s3.test/b/source.tar.gz?X-Amz-Signature=1',
        outputUrl: 'http://s3.test/b/output.tar?X-Amz-Signature=2',
        outputDirectory: '.',
        environment: { API_KEY: 'sk-secret-value', 'BAD=NAME': 'x' },
        limits: DEFAULT_BUILD_LIMITS,
      },
      { log: () => {}, finished },
    );
    expect(await result).toMatchObject({
      outcome: 'failed',
      reason: 'RunnerFailed',
      message: expect.stringMatching(/^the cluster refused the build's Job: Invalid: the environment variable "BAD=NAME"/),
    });
    expect(JSON.stringify(await result)).not.toContain('sk-secret');
  });
});
