// A hostile tenant's code on the real stack: a cw-runtime replica with two workerd shards and the operator. An
// app that loops and one that fills its heap are quarantined (the RuntimeApp says why, an Event is recorded,
// the app's log has the line) while another project's app on the same replica keeps answering; the
// quarantine ends after its back-off. An app whose requests compute in slices, yielding between them, is quarantined
// for holding its shard's thread while a neighbour's requests wait there (the sustained bound), the same ways.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { EVENTS, loadKubeConnection, objectClient, type KubeObject } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey } from '../src/platform/artifact-keys.ts';
import { RUNTIME_APPS } from '../src/platform/resources.ts';
import { shardOf } from '../runtime-server/engine/shard-of.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { send, type TestResponse } from '../runtime-server/engine/testing/http.ts';
import { latencySummary, whileProbing } from '../runtime-server/engine/testing/probe-latency.ts';
import { createTestNamespace } from './harness/namespace.ts';
import { STATUS_AUTH } from './harness/runtime-status-token.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const events = objectClient<KubeObject & { reason?: string; type?: string; message?: string; involvedObject?: { name?: string } }>(conn, EVENTS);
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
const running: Service[] = [];
afterAll(async () => Promise.all(running.map((s) => s.stop(5_000))));

const SHARDS = 2;
const HOSTILE = `export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === '/loop') for (;;) {}
    if (url.pathname === '/grow') { const kept = []; for (;;) kept.push(new Array(100000).fill(Math.random())); }
    return new Response('hostile ok');
  },
};
`;
const CALM = `export default { fetch() { return new Response('calm ok'); } };\n`;
/** `/burn` computes in slices of 30 ms forever, yielding between them: never long enough for the CPU bound. */
const BURNER = `export default {
  async fetch(request) {
    if (new URL(request.url).pathname === '/burn') for (;;) { const t = Date.now(); while (Date.now() - t < 30) {} await scheduler.wait(0); }
    return new Response('burner ok');
  },
};
`;

/** Serves `source` as app `name` in `namespace` (no Build resource: the runtime needs only the artifact and the spec). */
async function deploy(namespace: string, name: string, source: string): Promise<void> {
  const buildId = `b-${name}`;
  await bucket.put(artifactKey(namespace, name, buildId), artifactFromFiles({ 'worker.js': source }));
  await apps.create({ metadata: { name, namespace }, spec: { displayName: name, activeBuildId: buildId } });
}

function ready(app: RuntimeApp | undefined) {
  return app?.status?.conditions?.find((c) => c.type === 'Ready');
}

let runtime: Runtime;
let tenant = '';
let victim = '';
/** Another project on the tenant's shard: it waits while the tenant's burner computes. */
let neighbour = '';

beforeAll(async () => {
  tenant = await createTestNamespace(conn, 'tenant');
  // Another project, placed on the other shard (projects are spread by a hash of their name).
  do victim = await createTestNamespace(conn, 'victim');
  while (shardOf(victim, SHARDS) === shardOf(tenant, SHARDS));
  do neighbour = await createTestNamespace(conn, 'neighbour');
  while (shardOf(neighbour, SHARDS) !== shardOf(tenant, SHARDS));
  runtime = await startRuntime('cw-runtime-limits', tenant, running, {
    CW_RUNTIME_SHARDS: String(SHARDS),
    CW_RUNTIME_CPU_LIMIT: '300ms',
    CW_RUNTIME_ISOLATE_HEAP_MB: '32',
    // Long enough for the report to reach the RuntimeApp on a loaded machine (it shows only while the quarantine lasts).
    CW_RUNTIME_QUARANTINE: '15s',
    CW_RUNTIME_SUSTAINED_CPU_WINDOW: '2s',
  });
  await startOperator(tenant, running);
  await Promise.all([deploy(victim, 'victim', CALM), deploy(tenant, 'looper', HOSTILE), deploy(tenant, 'hog', HOSTILE), deploy(tenant, 'burner', BURNER), deploy(neighbour, 'neighbour', CALM)]);
  await servedEverywhere([runtime], `victim.${victim}.${BASE_DOMAIN}`, 'calm ok');
  // Not the looper yet: an app of the same shard that answered a moment before an attack is a suspect too
  // (work after its answer), and the heap test below wants one suspect. The looper's test asks it first.
  await servedEverywhere([runtime], `hog.${tenant}.${BASE_DOMAIN}`, 'hostile ok');
}, 120_000);

/** Runs `attack` while the victim (another project, on the other shard) is asked one request after another, each answered with its 200. */
async function underAttack(attack: () => Promise<TestResponse>): Promise<{ answer: TestResponse; victimMs: number[] }> {
  const probe = async () => {
    const res = await send(runtime.port, `victim.${victim}.${BASE_DOMAIN}`);
    expect([res.status, res.body]).toEqual([200, 'calm ok']);
  };
  const { result, latenciesMs } = await whileProbing(probe, attack);
  return { answer: result, victimMs: latenciesMs };
}

describe('bounded user code on the real stack', () => {
  it('quarantines an app that fills its heap with MemoryLimitExceeded, while another project keeps answering', { timeout: 60_000 }, async () => {
    const { answer, victimMs } = await underAttack(() => send(runtime.port, `hog.${tenant}.${BASE_DOMAIN}`, '/grow'));
    console.log(`e2e heap-filling app: the victim (another project, other shard) meanwhile: ${latencySummary(victimMs)}`);
    expect(answer.status).toBe(503);
    const held = await eventually(
      'hog Ready MemoryLimitExceeded',
      () => apps.get(tenant, 'hog'),
      (app) => ready(app)?.reason === 'MemoryLimitExceeded',
    );
    expect(ready(held)?.message).toMatch(/ran its runtime shard out of memory/);
    expect((await send(runtime.port, `victim.${victim}.${BASE_DOMAIN}`)).status).toBe(200);
  });

  it('quarantines a looping app with CPULimitExceeded on its RuntimeApp, an Event and a log line, while another project keeps answering; then serves it again', { timeout: 90_000 }, async () => {
    // The tenant's shard serves again after the attack before (its workerd was restarted).
    await servedEverywhere([runtime], `looper.${tenant}.${BASE_DOMAIN}`, 'hostile ok');
    const { answer, victimMs } = await underAttack(() => send(runtime.port, `looper.${tenant}.${BASE_DOMAIN}`, '/loop'));
    console.log(`e2e looping app: the victim (another project, other shard) meanwhile: ${latencySummary(victimMs)}`);
    expect(answer.status).toBe(503);
    expect(victimMs.length).toBeGreaterThan(2);

    const refused = await send(runtime.port, `looper.${tenant}.${BASE_DOMAIN}`);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ status: 503, reason: 'CPULimitExceeded' });

    const held = await eventually(
      'looper Ready CPULimitExceeded',
      () => apps.get(tenant, 'looper'),
      (app) => ready(app)?.reason === 'CPULimitExceeded',
    );
    expect(ready(held)).toMatchObject({ status: 'False' });
    expect(ready(held)?.message).toMatch(/ran for more than 300 ms without yielding.*1 of 1 runtime replicas answer its requests with 503/);
    expect(held?.status?.conditions?.find((c) => c.type === 'Deployed')).toMatchObject({ status: 'True', reason: 'Serving' });
    const event = await eventually(
      'a CPULimitExceeded Event',
      async () => (await events.list(tenant)).items.find((e) => e.reason === 'CPULimitExceeded' && e.involvedObject?.name === 'looper'),
      (e) => e !== undefined,
    );
    expect(event?.type).toBe('Warning');
    // The replica's log of the app (what cw logs merges) says which request was stopped and why.
    const logs = await (await fetch(`${runtime.statusUrl}/apps/${tenant}/looper/logs?follow=false`, STATUS_AUTH)).text();
    expect(logs).toMatch(/"outcome":"exceededCpu"/);
    expect(logs).toMatch(/"url":"\/loop"/);
    const report = (await (await fetch(`${runtime.statusUrl}/apps/${tenant}/looper`, STATUS_AUTH)).json()) as { quarantine?: { reason: string; until: string } };
    expect(report.quarantine).toMatchObject({ reason: 'CPULimitExceeded' });

    // The back-off ends: served again, and the RuntimeApp says so.
    await eventually(
      'looper Ready Serving again',
      () => apps.get(tenant, 'looper'),
      (app) => ready(app)?.reason === 'Serving',
      40_000,
    );
    expect((await send(runtime.port, `looper.${tenant}.${BASE_DOMAIN}`)).body).toBe('hostile ok');
  });

  it('quarantines an app whose yielding requests hold its shard while another project waits there, says so on its RuntimeApp, and cuts them short', { timeout: 60_000 }, async () => {
    await servedEverywhere([runtime], `burner.${tenant}.${BASE_DOMAIN}`, 'burner ok');
    await servedEverywhere([runtime], `neighbour.${neighbour}.${BASE_DOMAIN}`, 'calm ok');
    const probe = async () => expect((await send(runtime.port, `neighbour.${neighbour}.${BASE_DOMAIN}`)).status).toBe(200);
    const burn = () => send(runtime.port, `burner.${tenant}.${BASE_DOMAIN}`, '/burn');
    const { result: answers, latenciesMs } = await whileProbing(probe, () => Promise.all([burn(), burn()]));
    console.log(`e2e yielding app: the neighbour on its shard meanwhile: ${latencySummary(latenciesMs)}`);
    for (const answer of answers) expect(JSON.parse(answer.body)).toMatchObject({ status: 503, reason: 'CPULimitExceeded' });
    const held = await eventually(
      'burner Ready CPULimitExceeded',
      () => apps.get(tenant, 'burner'),
      (app) => ready(app)?.reason === 'CPULimitExceeded',
    );
    expect(ready(held)?.message).toMatch(/held most of its runtime shard's CPU time for 2 s while other projects' requests waited/);
    await eventually(
      'a CPULimitExceeded Event for the burner',
      async () => (await events.list(tenant)).items.find((e) => e.reason === 'CPULimitExceeded' && e.involvedObject?.name === 'burner'),
      (e) => e !== undefined,
    );
    const logs = await (await fetch(`${runtime.statusUrl}/apps/${tenant}/burner/logs?follow=false`, STATUS_AUTH)).text();
    expect(logs).toMatch(/"outcome":"exceededCpu"/);
    expect(logs).toMatch(/held most of its runtime shard's CPU time/);
    await probe();
  });
});
