// Gradual rollouts on the real stack (issue 41): the operator steps a rollout through its weights, a
// cw-runtime replica splits the app's traffic by the affinity key, and the analysis aborts a failing build.
// 2,000 distinct keys per step land on the new build within two points of the weight, no key moves back as
// the weight rises, and neither an operator restart nor a replica restart moves anyone.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from 'vitest';
import { ROLLOUT_PROMOTE_ANNOTATION, type RolloutPolicy } from '../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { EVENTS, loadKubeConnection, objectClient, type KubeObject } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey } from '../src/platform/artifact-keys.ts';
import { RUNTIME_APPS } from '../src/platform/resources.ts';
import { keyOnCanary } from '../src/runtime-contract/releases.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { createTestNamespace } from './harness/namespace.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const events = objectClient<KubeObject & { reason?: string; type?: string; message?: string; involvedObject?: { name?: string } }>(conn, EVENTS);
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
const running: Service[] = [];
afterAll(async () => Promise.all(running.map((s) => s.stop(5_000))));

const KEYS = Array.from({ length: 2000 }, (_, i) => `user-${i}`);
const worker = (answer: string, status = 200) => `export default { fetch() { return new Response(${JSON.stringify(answer)}, { status: ${status} }); } };\n`;

/** A short CPU bound, so a looping build stops its shard quickly. */
const RUNTIME_ENV = { CW_RUNTIME_CPU_LIMIT: '300ms' };
let namespace = '';
let runtime: Runtime;
let operator: Service;

async function upload(app: string, buildId: string, source: string): Promise<void> {
  await bucket.put(artifactKey(namespace, app, buildId), artifactFromFiles({ 'worker.js': source }));
}

async function setSpec(app: string, spec: Partial<RuntimeApp['spec']>): Promise<void> {
  await apps.patch(namespace, app, { spec });
}

const rolloutOf = (app: string) => apps.get(namespace, app).then((a) => a?.status?.rollout);

/** Waits for the rollout to stand at `phase` with `weight` (the operator moves on only once the replicas apply a weight). */
async function rolloutAt(app: string, phase: string, weight: number, timeoutMs = 30_000) {
  return eventually(
    `${app} rollout ${phase} at ${weight} %`,
    () => rolloutOf(app),
    (r) => r?.phase === phase && r.weight === weight,
    timeoutMs,
  );
}

/** Which body each key gets, 2,000 requests, 20 at a time. */
async function answersByKey(host: string, port = runtime.port): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < KEYS.length; i += 20) {
    const batch = KEYS.slice(i, i + 20);
    const answers = await Promise.all(batch.map((key) => send(port, host, '/', { headers: { 'x-user': key } })));
    answers.forEach((res, j) => {
      expect(res.status).toBe(200);
      out.set(batch[j]!, res.body);
    });
  }
  return out;
}

const share = (answers: Map<string, string>, body: string) => (100 * [...answers.values()].filter((b) => b === body).length) / answers.size;

async function promote(app: string): Promise<void> {
  await apps.patch(namespace, app, { metadata: { annotations: { [ROLLOUT_PROMOTE_ANNOTATION]: `${Date.now()}` } } });
}

beforeAll(async () => {
  namespace = await createTestNamespace(conn, 'rollouts');
  runtime = await startRuntime('cw-runtime-rollouts', namespace, running, RUNTIME_ENV);
  await startOperator(namespace, running);
  operator = running.at(-1)!;
}, 120_000);

describe('gradual rollouts on the real stack', () => {
  it('steps 10 % → 50 % → 100 % with each key on one build, surviving an operator and a replica restart', { timeout: 240_000 }, async () => {
    const host = `web.${namespace}.${BASE_DOMAIN}`;
    await upload('web', 'v1', worker('v1'));
    await upload('web', 'v2', worker('v2'));
    const rollout: RolloutPolicy = {
      steps: [
        { weight: 10, pause: {} },
        { weight: 50, pause: {} },
      ],
      affinity: { header: 'x-user' },
    };
    await apps.create({ metadata: { name: 'web', namespace }, spec: { displayName: 'web', activeBuildId: 'v1', rollout } });
    await servedEverywhere([runtime], host, 'v1');
    // The policy applies to the next change: v1 is recorded as the stable release first.
    await rolloutAt('web', 'Succeeded', 100);

    await setSpec('web', { activeBuildId: 'v2' });
    const first = await rolloutAt('web', 'Paused', 10);
    expect(first).toMatchObject({ step: 0, stable: { buildId: 'v1' }, canary: { buildId: 'v2' } });
    const at10 = await answersByKey(host);
    console.log(`e2e rollout: at 10 % ${share(at10, 'v2').toFixed(2)} % of 2,000 keys on v2`);
    expect(Math.abs(share(at10, 'v2') - 10)).toBeLessThanOrEqual(2);

    // The operator killed mid-rollout resumes where it stood.
    await operator.stop(5_000);
    await startOperator(namespace, running);
    operator = running.at(-1)!;
    expect(await rolloutOf('web')).toMatchObject({ phase: 'Paused', step: 0, weight: 10 });

    await promote('web');
    await rolloutAt('web', 'Paused', 50);
    const at50 = await answersByKey(host);
    console.log(`e2e rollout: at 50 % ${share(at50, 'v2').toFixed(2)} % of 2,000 keys on v2`);
    expect(Math.abs(share(at50, 'v2') - 50)).toBeLessThanOrEqual(2);
    expect(KEYS.filter((k) => at10.get(k) === 'v2' && at50.get(k) !== 'v2')).toEqual([]);

    // A replica restart keeps every key where it was.
    await runtime.service.stop(5_000);
    runtime = await startRuntime('cw-runtime-rollouts', namespace, running, RUNTIME_ENV);
    await eventually(
      'the new replica splits again',
      () => send(runtime.port, host, '/', { headers: { 'x-user': 'probe' } }),
      (r) => r.status === 200,
    );
    const restarted = await answersByKey(host);
    expect(KEYS.filter((k) => restarted.get(k) !== at50.get(k))).toEqual([]);

    await promote('web');
    await rolloutAt('web', 'Succeeded', 100);
    await servedEverywhere([runtime], host, 'v2');
    // The operator records a rollout's Event after the status write that moved it, so the status is seen first.
    const reasons = await eventually(
      'a RolloutSucceeded Event',
      async () => (await events.list(namespace)).items.filter((e) => e.involvedObject?.name === 'web' && e.reason?.startsWith('Rollout')).map((e) => e.reason),
      (r) => r.includes('RolloutSucceeded'),
    );
    expect(reasons.filter((r) => r === 'RolloutSucceeded')).toHaveLength(1);
  });

  it('aborts a build that answers 500 by its analysis: the stable build serves everything, and the RuntimeApp says why', { timeout: 180_000 }, async () => {
    const host = `api.${namespace}.${BASE_DOMAIN}`;
    await upload('api', 'v1', worker('v1'));
    await upload('api', 'v3', worker('broken', 500));
    const rollout: RolloutPolicy = {
      steps: [{ weight: 50, pause: { duration: '1h' } }],
      analysis: { interval: '2s', minRequests: 20, maxErrorPercent: 5 },
    };
    await apps.create({ metadata: { name: 'api', namespace }, spec: { displayName: 'api', activeBuildId: 'v1', rollout } });
    await servedEverywhere([runtime], host, 'v1');
    await rolloutAt('api', 'Succeeded', 100);

    await setSpec('api', { activeBuildId: 'v3' });
    await rolloutAt('api', 'Progressing', 50);
    // Traffic without a cookie kept (each request a new user) until the analysis has judged v3.
    const aborted = await eventually(
      'the analysis aborts v3',
      async () => {
        await Promise.all(Array.from({ length: 20 }, () => send(runtime.port, host)));
        return rolloutOf('api');
      },
      (r) => r?.phase === 'Aborted',
      60_000,
    );
    expect(aborted?.message).toMatch(/v3/);
    expect(aborted?.message).toMatch(/5 %/);
    await eventually(
      'v1 serves everything again',
      () => Promise.all(Array.from({ length: 40 }, () => send(runtime.port, host))),
      (answers) => answers.every((r) => r.status === 200 && r.body === 'v1'),
    );
    const app = await apps.get(namespace, 'api');
    expect(app?.status?.conditions?.find((c) => c.type === 'RolloutProgressing')).toMatchObject({ status: 'False', reason: 'Aborted' });
    expect(app?.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'RolloutAborted' });
    // Applying the same release again (a new generation, the same build and environment) does not start it again.
    await apps.patch(namespace, 'api', { metadata: { labels: { reapplied: 'yes' } }, spec: { maxConcurrentRequests: 50 } });
    const generation = (await apps.get(namespace, 'api'))?.metadata?.generation ?? 0;
    const after = await eventually(
      'the operator saw the new generation',
      () => apps.get(namespace, 'api'),
      (a) => (a?.status?.observedGeneration ?? 0) >= generation,
    );
    expect(after?.status?.rollout).toMatchObject({ phase: 'Aborted', weight: 0 });
  });

  it('aborts a new build that stops its runtime shard (a loop) with the reason, while the stable build keeps serving', { timeout: 120_000 }, async () => {
    const host = `loop.${namespace}.${BASE_DOMAIN}`;
    // What the replica said of its stops, should the test fail: the state directory goes with the run.
    onTestFailed(() => {
      const log = readFileSync(join(inject('stateDir'), 'cw-runtime-rollouts.log'), 'utf8');
      console.log(
        log
          .split('\n')
          .filter((line) => /"level":"(warn|error)"|"name":"loop"/.test(line))
          .join('\n'),
      );
    });
    await upload('loop', 'v1', worker('v1'));
    await upload('loop', 'v4', 'export default { fetch() { for (;;) {} } };\n');
    const rollout: RolloutPolicy = { steps: [{ weight: 50, pause: {} }], affinity: { header: 'x-user' } };
    await apps.create({ metadata: { name: 'loop', namespace }, spec: { displayName: 'loop', activeBuildId: 'v1', rollout } });
    await servedEverywhere([runtime], host, 'v1');
    await rolloutAt('loop', 'Succeeded', 100);

    await setSpec('loop', { activeBuildId: 'v4' });
    await rolloutAt('loop', 'Paused', 50);
    const onV4 = KEYS.find((key) => keyOnCanary(key, 50))!;
    const onV1 = KEYS.find((key) => !keyOnCanary(key, 50))!;
    expect((await send(runtime.port, host, '/', { headers: { 'x-user': onV1 } })).body).toBe('v1');
    // The key's request runs the loop: a 503 once the watchdog stops the shard. One answered 503 without running it
    // (v4 still being prepared, or the shard between two workerds on a loaded machine) is asked again, until the
    // replica has suspended v4 and the operator aborted the rollout.
    const answers: number[] = [];
    await eventually(
      'a request on v4 running its loop, and the rollout aborted',
      async () => {
        const app = await apps.get(namespace, 'loop');
        if (app?.status?.rollout?.phase !== 'Aborted') answers.push((await send(runtime.port, host, '/', { headers: { 'x-user': onV4 } })).status);
        return app;
      },
      (app) => app?.status?.rollout?.phase === 'Aborted',
      60_000,
    );
    // The looping request's answer: the watchdog stopped its shard.
    expect(answers).toContain(503);

    const aborted = await rolloutAt('loop', 'Aborted', 0);
    expect(aborted?.message).toBe('Build v4 stopped a runtime shard (it ran past the CPU bound or out of memory) on 1 of 1 runtime replicas. Build v1 serves all traffic.');
    // The user whose key went to v4 is served by v1 now, as everyone is.
    await eventually(
      'v1 serves the key v4 had',
      () => send(runtime.port, host, '/', { headers: { 'x-user': onV4 } }),
      (r) => r.status === 200 && r.body === 'v1',
    );
    const warning = await eventually(
      'a RolloutAborted Event',
      async () => (await events.list(namespace)).items.find((e) => e.involvedObject?.name === 'loop' && e.reason === 'RolloutAborted'),
      (e) => e !== undefined,
    );
    expect(warning?.type).toBe('Warning');
  });
});
