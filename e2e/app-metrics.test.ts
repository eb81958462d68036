// App metrics end to end (issue 42): two real cw-runtime replicas serve an app, real requests (200s, 404s,
// 500s, thrown exceptions, slow answers) go to each, and cw-api's metrics route merges both replicas'
// windows; one replica is killed (listed missing while its lease lasts) and restarted (its window begins
// again at its start, the other's minutes stay). Then `cw metrics`, `cw apps get` and `cw apps ls` show the
// same figures.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ReplicaAppMetrics } from '../src/runtime-contract/app-metrics.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { cw, cwJson, expectOneLineError, newCwUser, startCw, type CwUser } from './harness/cli.ts';
import { killHard, type Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, packWorker, s3Env, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';
import { RUNTIME_STATUS_TOKEN } from './harness/runtime-status-token.ts';

const kubeconfig = inject('kubeconfig');
const running: Service[] = [];
let api: ApiServer | undefined;
let runtimes: Runtime[] = [];
let member: MemberAccount;
let user: CwUser;

afterAll(async () => {
  await Promise.all([api?.stop(), ...running.map((s) => s.stop(5_000))]);
});

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'metrics');
  await createProjectNamespace(kubeconfig, member.project);
  const started = await Promise.all([
    startRuntime('cw-runtime-met-a', member.project, running),
    startRuntime('cw-runtime-met-b', member.project, running),
    startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { ...s3Env(), CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN, POD_NAMESPACE: member.project } }),
  ]);
  runtimes = [started[0], started[1]];
  api = started[2];
  await startOperator(member.project, running);
  user = newCwUser(api.url, { CW_TOKEN: member.token, CW_PROJECT: member.project });
}, 120_000);

const WORKER = `export default { async fetch(request) {
  const path = new URL(request.url).pathname;
  if (path === '/boom') throw new Error('boom');
  if (path === '/fail') return new Response('failed', { status: 500 });
  if (path === '/missing') return new Response('no such page', { status: 404 });
  if (path === '/slow') await new Promise((resolve) => setTimeout(resolve, 120));
  return new Response('ok');
} };\n`;

interface Totals {
  requests: number;
  errors: number;
  error_ratio: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  exceptions: number;
  refused: number;
}
interface Point {
  time: string;
  requests: number;
  errors: number;
  status: Record<string, number>;
  exceptions: number;
}
interface Metrics {
  since: string;
  until: string;
  step_seconds: number;
  replicas: { answered: number; live: number; missing: string[] };
  points: Point[];
  totals: Totals;
  builds: Record<string, unknown>;
  events: Array<{ time: string; kind: string; build_id: string; detail?: string }>;
}

async function call<T>(path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${api?.url}/v1/projects/${member.project}${path}`, { headers: { authorization: `Bearer ${member.token}` } });
  return { status: res.status, body: (await res.json()) as T };
}

async function ok<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
  const res = await fetch(`${api?.url}/v1/projects/${member.project}${path}`, {
    method,
    headers: { authorization: `Bearer ${member.token}`, 'content-type': contentType },
    body: body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.ok, `${method} ${path}: ${text}`).toBe(true);
  return JSON.parse(text) as T;
}

const metrics = async (app: string, query = 'since=15m') => {
  const res = await call<{ metrics: Metrics }>(`/apps/${app}/metrics?${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.metrics;
};

/** A replica's own window of the app, read from its status port as cw-api reads it. */
async function replicaWindow(runtime: Runtime, app: string): Promise<ReplicaAppMetrics> {
  const res = await fetch(`${runtime.statusUrl}/apps/${member.project}/${app}/metrics?since=${Date.now() - 15 * 60_000}`, { headers: { authorization: `Bearer ${RUNTIME_STATUS_TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as ReplicaAppMetrics;
}

const sumOf = (w: ReplicaAppMetrics, field: 'requests' | 'errors' | 'exceptions') =>
  w.minutes.reduce((n, m) => n + (field === 'requests' ? m.classes.reduce((a, b) => a + b, 0) : field === 'errors' ? (m.classes[4] ?? 0) : m.exceptions), 0);

async function hit(runtime: Runtime, host: string, paths: Record<string, number>): Promise<void> {
  for (const [path, times] of Object.entries(paths)) for (let i = 0; i < times; i++) await send(runtime.port, host, path);
}

describe('app metrics over two runtime replicas', () => {
  it('merges both replicas’ minutes, names a replica that does not answer, and counts a restarted one from its start', { timeout: 240_000 }, async () => {
    const project = member.project;
    const host = `meter.${project}.${BASE_DOMAIN}`;
    await ok('POST', '/apps', { name: 'meter' });
    await ok('POST', '/apps/meter/deployments', packWorker(WORKER), 'application/octet-stream');
    await servedEverywhere(runtimes, host, 'ok');
    const [a, b] = runtimes as [Runtime, Runtime];

    const before = await metrics('meter');
    expect(before.replicas).toEqual({ answered: 2, live: 2, missing: [] });
    expect(before.step_seconds).toBe(60);
    expect(before.points).toHaveLength(Math.ceil((Date.parse(before.until) - Date.parse(before.since)) / 60_000));
    expect(before.builds).toEqual({});
    // The deploy is marked on the time axis, from the operator's deploy history of the app.
    const marked = await eventually(
      'the deploy marked',
      () => metrics('meter'),
      (m) => m.events.length > 0,
    );
    expect(marked.events).toEqual([expect.objectContaining({ kind: 'deploy', build_id: expect.stringMatching(/^b-[0-9a-f]{16}$/) as string })]);

    await hit(a, host, { '/': 6, '/fail': 2, '/boom': 2, '/missing': 1, '/slow': 2 });
    await hit(b, host, { '/': 4, '/boom': 1 });
    const after = await metrics('meter');
    const delta = (field: keyof Totals) => (after.totals[field] as number) - (before.totals[field] as number);
    expect([delta('requests'), delta('errors'), delta('exceptions'), delta('refused')]).toEqual([18, 5, 3, 0]);
    // The points add up to the totals, class by class.
    const classes = (m: Metrics, c: string) => m.points.reduce((n, p) => n + (p.status[c] ?? 0), 0);
    expect([classes(after, '2xx') - classes(before, '2xx'), classes(after, '4xx') - classes(before, '4xx'), classes(after, '5xx') - classes(before, '5xx')]).toEqual([12, 1, 5]);
    expect(after.points.reduce((n, p) => n + p.requests, 0)).toBe(after.totals.requests);
    // Two answers of 120 ms or more among ~20: the p99 is in the 100–250 ms bucket, the median well below it.
    expect(after.totals.p99_ms).toBeGreaterThanOrEqual(100);
    expect(after.totals.p50_ms).toBeLessThan(25);
    expect(after.totals.error_ratio).toBeCloseTo(after.totals.errors / after.totals.requests, 5);

    // The replicas' own windows, which the route merged (each needs the status token).
    expect((await fetch(`${a.statusUrl}/apps/${project}/meter/metrics`)).status).toBe(401);
    const [onA, onB] = await Promise.all([replicaWindow(a, 'meter'), replicaWindow(b, 'meter')]);
    expect(sumOf(onA, 'requests') + sumOf(onB, 'requests')).toBe(after.totals.requests);
    expect(sumOf(onA, 'exceptions')).toBe(2);
    expect(sumOf(onB, 'exceptions')).toBe(1);

    // B crashes: its lease still runs, so it is live but does not answer; A's minutes are all there is.
    await killHard(b.service);
    const down = await metrics('meter');
    expect(down.replicas).toEqual({ answered: 1, live: 2, missing: [b.name] });
    expect(down.totals.requests).toBe(sumOf(onA, 'requests'));

    // B restarts under its name: its window begins at its start, A's minutes stay.
    const restartedAt = Date.now();
    const b2 = await startRuntime(b.name, project, running);
    runtimes = [a, b2];
    await servedEverywhere([b2], host, 'ok');
    await hit(b2, host, { '/fail': 3 });
    const onB2 = await replicaWindow(b2, 'meter');
    expect(onB2.started).toBeGreaterThanOrEqual(restartedAt);
    expect(sumOf(onB2, 'errors')).toBe(3);
    const again = await eventually(
      'both replicas answering again',
      () => metrics('meter'),
      (m) => m.replicas.answered === 2,
      30_000,
    );
    expect(again.replicas).toEqual({ answered: 2, live: 2, missing: [] });
    expect(again.totals.requests).toBe(sumOf(onA, 'requests') + sumOf(onB2, 'requests'));
    expect(again.totals.errors).toBe(sumOf(onA, 'errors') + 3);

    // A day at the default step, a custom step, and what the route refuses.
    const day = await metrics('meter', 'since=24h');
    expect([day.step_seconds, day.points.length]).toEqual([900, Math.ceil((Date.parse(day.until) - Date.parse(day.since)) / 900_000)]);
    expect(day.totals.requests).toBe(again.totals.requests);
    expect((await metrics('meter', 'since=1h&step=5m')).step_seconds).toBe(300);
    for (const query of ['since=25h', 'since=soon', 'step=2m', 'since=2020-01-01T00:00:00Z']) {
      const res = await call<{ detail: string }>(`/apps/meter/metrics?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.detail, query).toMatch(query.startsWith('step') ? /step/ : /since/);
    }
    expect((await call('/apps/nope/metrics')).status).toBe(404);

    // The apps list: each app's last hour, from one read of every replica.
    await ok('POST', '/apps', { name: 'calm' });
    await ok('POST', '/apps/calm/deployments', packWorker(`export default { fetch() { return new Response('ok'); } };\n`), 'application/octet-stream');
    await servedEverywhere(runtimes, `calm.${project}.${BASE_DOMAIN}`, 'ok');
    await hit(a, `calm.${project}.${BASE_DOMAIN}`, { '/': 5 });
    const list = await call<{ apps: Array<{ app_id: string; traffic?: { requests: number; error_ratio: number | null; p95_ms: number | null } }> }>('/apps');
    const traffic = Object.fromEntries(list.body.apps.map((x) => [x.app_id, x.traffic]));
    expect(traffic.meter).toEqual({ requests: again.totals.requests, error_ratio: expect.closeTo(again.totals.error_ratio!, 5) as number, p95_ms: expect.any(Number) as number });
    expect(traffic.calm).toMatchObject({ requests: 7, error_ratio: 0 }); // five, and each replica's check that it serves

    // `cw`: the same figures.
    const json = await cwJson<{ metrics: Metrics }>(user, ['metrics', 'meter', '--since', '15m'], { method: 'GET', path: '/v1/projects/{projectId}/apps/{appId}/metrics' });
    expect(json.metrics.totals.requests).toBe(again.totals.requests);
    const table = await cw(user, ['metrics', 'meter', '--since', '15m']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('2 of 2 runtime replicas');
    expect(table.stdout).toMatch(new RegExp(`total: requests ${again.totals.requests} · errors [0-9.]+ % · p95 [0-9.]+ ms`));
    const got = await cw(user, ['apps', 'get', 'meter']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(new RegExp(`Last hour:\\s+requests ${again.totals.requests} · errors [0-9.]+ % · p95 [0-9.]+ ms`));
    const ls = await cw(user, ['apps', 'ls']);
    expect(ls.code, ls.stderr).toBe(0);
    const rows = ls.stdout.split('\n').filter((line) => /^(meter|calm)\s/.test(line));
    expect(rows.map((line) => line.split(/\s+/)[0])).toEqual(['meter', 'calm']); // the failing app first
    expect(rows[1]).toMatch(/\s7\s+0 %\s/);
    // On a terminal, a sparkline of requests/s.
    const tty = startCw(user, ['metrics', 'meter', '--since', '15m'], { pty: true });
    await tty.waitFor(/requests\/s [▁▂▃▄▅▆▇█]+/);
    expect((await tty.done).code).toBe(0);
    expectOneLineError(await cw(user, ['metrics', 'meter', '--since', '2d']), 2, /--since.*expected a duration up to 24h/);
    expectOneLineError(await cw(user, ['metrics', 'meter', '--step', '2m']), 2, /--step.*expected one of 1m, 5m, 15m, 1h/);
  });

  it('keeps a series per build while the app is in a rollout, from the real operator’s split on both replicas', { timeout: 180_000 }, async () => {
    const project = member.project;
    const host = `split.${project}.${BASE_DOMAIN}`;
    const release = (version: string) => packWorker(`export default { fetch(request) { return new Response('${version}', { status: new URL(request.url).pathname === '/fail' ? 500 : 200 }); } };\n`);
    await ok('POST', '/apps', { name: 'split' });
    const v1 = (await ok<{ build_id: string }>('POST', '/apps/split/deployments', release('v1'), 'application/octet-stream')).build_id;
    await servedEverywhere(runtimes, host, 'v1');
    await ok('PUT', '/apps/split/rollout', { steps: [{ weight: 50, pause: 'manual' }] });
    const v2 = (await ok<{ build_id: string }>('POST', '/apps/split/deployments', release('v2'), 'application/octet-stream')).build_id;
    // Each replica splits once it serves both releases: a request forced to the new one gets it.
    for (const runtime of runtimes) {
      await eventually(
        `${runtime.name} serves the new release`,
        () => send(runtime.port, host, '/', { headers: { 'cw-rollout-build': 'canary' } }),
        (r) => r.body === 'v2',
        60_000,
      );
    }
    const [a, b] = runtimes as [Runtime, Runtime];
    for (let i = 0; i < 3; i++) await send(a.port, host, '/fail', { headers: { 'cw-rollout-build': 'canary' } });
    for (let i = 0; i < 2; i++) await send(b.port, host, '/', { headers: { 'cw-rollout-build': 'stable' } });
    const m = await metrics('split');
    expect(Object.keys(m.builds).sort()).toEqual([v1, v2].sort());
    const totals = (build: string) => (m.builds[build] as { totals: Totals }).totals;
    // The new release: the check on each replica that it serves, and three 500s; the stable one: two answers.
    expect(totals(v2)).toMatchObject({ requests: 5, errors: 3 });
    expect(totals(v1)).toMatchObject({ requests: 2, errors: 0 });
    expect(m.totals.requests).toBeGreaterThanOrEqual(7); // the app's series has them too, and the answers before the split
  });
});
