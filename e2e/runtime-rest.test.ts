// Runtime apps end to end through the REST API only: a member creates an app, deploys, sets its environment,
// deploys again, rolls back and deletes it with HTTP calls to a real cw-api; what is served is read from the
// runtime entry point (two cw-runtime replicas) by Host. Only the final clean-up is checked behind the API:
// the RuntimeApp and Builds in the control plane and the artifacts in MinIO.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Build } from '../src/apis/v1alpha1/build.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { listAll } from '../src/object-store/list-all.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { appArtifactPrefix } from '../src/platform/artifact-keys.ts';
import { BUILDS, RUNTIME_APPS } from '../src/platform/resources.ts';
import { EventStream } from '../git-server/repo-api/testing/event-stream-client.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, notServedAnywhere, packWorker, PUBLIC_PORT, s3Env, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';

/** How long a change made through the API may take to be served (or unserved) by every replica. */
const TAKES_EFFECT_MS = 5_000;

const kubeconfig = inject('kubeconfig');
const conn = loadKubeConnection(kubeconfig);
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
const running: Service[] = [];
let api: ApiServer | undefined;
let runtimes: Runtime[] = [];
let member: MemberAccount;
/** Milliseconds from the API's answer to every replica serving the change, by step. */
const timings: Record<string, number> = {};

afterAll(async () => {
  process.stdout.write(`runtime-rest: change → served on every replica (ms): ${JSON.stringify(timings)}\n`);
  await Promise.all([api?.stop(), ...running.map((s) => s.stop(5_000))]);
});

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'rest');
  // The operator below watches the project's namespace only, so its Project controller does not run.
  await createProjectNamespace(kubeconfig, member.project);
  const started = await Promise.all([
    startRuntime('cw-runtime-rest-a', member.project, running),
    startRuntime('cw-runtime-rest-b', member.project, running),
    // The replicas report in the project's namespace here: the API finds them there (app logs).
    startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { ...s3Env(), CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN, POD_NAMESPACE: member.project } }),
  ]);
  runtimes = [started[0], started[1]];
  api = started[2];
  await startOperator(member.project, running);
}, 120_000);

/** A one-file worker that answers its version and `env.GREETING`. */
function workerArtifact(version: string): Buffer {
  return packWorker(`export default { fetch(request, env) { return new Response(\`\${env.GREETING ?? 'Hello'} from ${version}\`); } };\n`);
}

async function call<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: T }> {
  if (!api) throw new Error('cw-api is not running');
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}` };
  if (body !== undefined) headers['content-type'] = contentType;
  const res = await fetch(`${api.url}/v1/projects/${member.project}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** Calls the API, expects `status`, and returns the body. */
async function ok<T>(status: number, method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const res = await call<T>(method, path, body, contentType);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

/** Runs `until` (which waits for the change to show everywhere) and asserts it happened within TAKES_EFFECT_MS. */
async function takesEffect(step: string, until: () => Promise<void>): Promise<void> {
  const t0 = performance.now();
  await until();
  timings[step] = Math.round(performance.now() - t0);
  expect(timings[step], `${step} took effect in ${timings[step]} ms`).toBeLessThan(TAKES_EFFECT_MS);
}

interface DeployResult {
  app_id: string;
  build_id: string;
  hosts: string[];
  uploaded: boolean;
}

describe('runtime apps through the REST API', () => {
  it('deploys, reconfigures, redeploys, rolls back and deletes an app, each change served within 5 s', { timeout: 180_000 }, async () => {
    const project = member.project;
    // An extra host name in the project's part of the runtime's domain (custom domains are attached: e2e/dns.test.ts).
    const www = `www.${project}.${BASE_DOMAIN}`;
    const host = `hello.${project}.${BASE_DOMAIN}`;

    const created = await ok<{ app: { app_id: string; active_build_id: string; hosts: string[] } }>(201, 'POST', '/apps', { name: 'hello' });
    expect(created.app).toMatchObject({ app_id: 'hello', active_build_id: '', hosts: [host] });

    const v1 = await ok<DeployResult>(200, 'POST', `/apps/hello/deployments?hostnames=${www}`, workerArtifact('v1'), 'application/octet-stream');
    expect(v1).toMatchObject({ app_id: 'hello', hosts: [host, www], uploaded: true });
    expect(v1.build_id).toMatch(/^b-[0-9a-f]{16}$/);
    await takesEffect('deploy v1', async () => {
      await servedEverywhere(runtimes, www, 'Hello from v1');
      await servedEverywhere(runtimes, host, 'Hello from v1');
    });
    // The operator reports the replicas' state in the app's view.
    const ready = await eventually(
      'GET app ready',
      () => ok<{ app: { ready: boolean; url?: string } }>(200, 'GET', '/apps/hello'),
      (b) => b.app.ready,
    );
    expect(ready.app).toMatchObject({ active_build_id: v1.build_id, hosts: [host, www], url: `http://${host}:${PUBLIC_PORT}` });

    const variable = await ok<{ variable: unknown }>(200, 'PUT', '/apps/hello/environment/GREETING', { value: 'Howdy' });
    expect(variable.variable).toEqual({ key: 'GREETING', value: 'Howdy', secret: false });
    await takesEffect('set GREETING', () => servedEverywhere(runtimes, www, 'Howdy from v1'));
    expect(await ok(200, 'GET', '/apps/hello/environment')).toEqual({ environment: { GREETING: { value: 'Howdy', secret: false } } });

    // No `hostnames`: deploy options are per deploy, so this one binds none and www is no longer served.
    const v2 = await ok<DeployResult>(200, 'POST', '/apps/hello/deployments', workerArtifact('v2'), 'application/octet-stream');
    expect(v2).toMatchObject({ app_id: 'hello', hosts: [host], uploaded: true });
    expect(v2.build_id).not.toBe(v1.build_id);
    await takesEffect('deploy v2', async () => {
      await servedEverywhere(runtimes, host, 'Howdy from v2');
      await notServedAnywhere(runtimes, www);
    });

    const { builds } = await ok<{ builds: { build_id: string; active: boolean; size: number; digest: string; deploy_options?: unknown }[] }>(200, 'GET', '/apps/hello/builds');
    expect(builds.map((b) => [b.build_id, b.active, b.deploy_options])).toEqual([
      [v2.build_id, true, { hostnames: [] }],
      [v1.build_id, false, { hostnames: [www] }],
    ]);
    for (const b of builds) expect(b.digest).toMatch(/^sha256:[0-9a-f]{64}$/);

    // The rollback serves v1 as it was deployed: on www again.
    const rollback = await ok<DeployResult>(200, 'POST', '/apps/hello/rollbacks', { build_id: v1.build_id });
    expect(rollback).toEqual({ app_id: 'hello', build_id: v1.build_id, hosts: [host, www], uploaded: false });
    await takesEffect('roll back to v1', async () => {
      await servedEverywhere(runtimes, www, 'Howdy from v1');
      await servedEverywhere(runtimes, host, 'Howdy from v1');
    });

    const report = await ok(200, 'DELETE', '/apps/hello');
    expect(report).toEqual({
      app_id: 'hello',
      status: 'deleted',
      deleted: { routing_pointer: true, runtime_resources: 3, build_artifacts: 2, environment_keys: 1, dns_records: 0, hostnames: [www] },
      dns_cleanup_pending: [{ hostname: www, records: [] }],
    });
    await takesEffect('delete', async () => {
      await notServedAnywhere(runtimes, www);
      await notServedAnywhere(runtimes, host);
    });
    expect((await call('GET', '/apps/hello')).status).toBe(404);

    // Nothing is left behind the API: no RuntimeApp, no Build, no stored artifact.
    expect(await objectClient<RuntimeApp>(conn, RUNTIME_APPS).get(project, 'hello')).toBeUndefined();
    const leftBuilds = (await objectClient<Build>(conn, BUILDS).list(project)).items.filter((b) => b.spec.app === 'hello');
    expect(leftBuilds.map((b) => b.metadata?.name)).toEqual([]);
    const leftArtifacts: string[] = [];
    for await (const object of listAll(bucket, appArtifactPrefix(project, 'hello'))) leftArtifacts.push(object.key);
    expect(leftArtifacts).toEqual([]);
  });

  it('streams an app’s logs from every replica: console lines and exceptions within a second, filtered, its own only', { timeout: 120_000 }, async () => {
    const project = member.project;
    const logger = (name: string) =>
      packWorker(`export default { fetch(request) {
  const path = new URL(request.url).pathname;
  console.log('${name} serving', path);
  if (path === '/boom') throw new Error('${name} exploded');
  return new Response('${name} ok');
} };\n`);
    for (const name of ['chatty', 'quiet']) {
      await ok(201, 'POST', '/apps', { name });
      await ok(200, 'POST', `/apps/${name}/deployments`, logger(name), 'application/octet-stream');
      await servedEverywhere(runtimes, `${name}.${project}.${BASE_DOMAIN}`, `${name} ok`);
    }
    const headers = { authorization: `Bearer ${member.token}` };
    const url = `${api?.url}/v1/projects/${project}/apps/chatty/logs`;
    const stream = await EventStream.open(`${url}?recent=0`, { headers });
    expect([stream.status, stream.headers['content-type']]).toEqual([200, 'text/event-stream']);
    expect(await stream.next({ events: true })).toEqual({ event: 'live', data: { replicas: 2 } });

    // One request to each replica, one that throws, and one to the other app (never shown here).
    const sent = performance.now();
    await send(runtimes[0]!.port, `chatty.${project}.${BASE_DOMAIN}`, '/first', { headers: { authorization: 'Bearer app-secret' } });
    await send(runtimes[1]!.port, `chatty.${project}.${BASE_DOMAIN}`, '/boom');
    await send(runtimes[0]!.port, `quiet.${project}.${BASE_DOMAIN}`, '/');
    const got: Record<string, unknown>[] = [];
    while (got.length < 2) {
      const message = await stream.next({ events: true });
      expect(message && 'event' in message && message.event).toBe('log');
      if (message && 'event' in message) got.push(message.data as Record<string, unknown>);
    }
    const latency = performance.now() - sent;
    timings['logs: request → event'] = Math.round(latency);
    expect(latency).toBeLessThan(1000);
    const byPath = Object.fromEntries(got.map((e) => [new URL((e.request as { url: string }).url).pathname, e]));
    expect(byPath['/first']).toMatchObject({ replica: runtimes[0]!.name, status: 200, outcome: 'ok', logs: [{ level: 'log', message: 'chatty serving /first' }], exceptions: [] });
    expect(byPath['/boom']).toMatchObject({ replica: runtimes[1]!.name, outcome: 'exception', exceptions: [{ name: 'Error', message: 'chatty exploded' }] });
    expect(JSON.stringify(got)).not.toContain('app-secret');
    stream.close();

    // The first screen from the replicas' recent buffers, merged in time order; filters; an end without follow.
    const recent = async (query: string) => {
      const res = await fetch(`${url}?follow=false&${query}`, { headers });
      expect(res.status).toBe(200);
      return (await res.text())
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as { request: { url: string }; time: string });
    };
    const all = await recent('recent=100');
    // The '/' requests are the harness's checks that each replica serves the app.
    expect(all.map((e) => new URL(e.request.url).pathname).filter((path) => path !== '/')).toEqual(['/first', '/boom']);
    expect(all.map((e) => e.time)).toEqual(all.map((e) => e.time).toSorted());
    expect((await recent('status=5xx,exception')).map((e) => new URL(e.request.url).pathname)).toEqual(['/boom']);
    expect((await recent('search=FIRST')).map((e) => new URL(e.request.url).pathname)).toEqual(['/first']);
    expect((await call('GET', '/apps/chatty/logs?status=6xx')).status).toBe(400);
    expect((await call('GET', '/apps/nope/logs?follow=false')).status).toBe(404);
    for (const name of ['chatty', 'quiet']) await ok(200, 'DELETE', `/apps/${name}`);
  });
});
