// Rollouts in the runtime engine against the real workerd: two releases of an app served at once, split by
// weight and affinity key (docs/rollouts.md), with their counts per release.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import type { AppDeployment, CanaryDeployment } from './ports.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send, type TestResponse } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';
import { keyOnCanary } from '../../src/runtime-contract/releases.ts';

/** A worker that says which version it is, with its greeting and the override header it saw; `/fail` answers 500, `/throw` throws. */
function worker(version: string): string {
  return `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/fail') return new Response('failed', { status: 500 });
    if (url.pathname === '/throw') throw new Error('thrown by ${version}');
    if (url.pathname === '/echo') return new Response('${version} ' + request.method + ' ' + (await request.text()) + ' ' + request.headers.get('cw-rollout-build'));
    return Response.json({ version: ${JSON.stringify(version)}, greeting: env.GREETING ?? null, override: request.headers.get('cw-rollout-build') });
  },
};
`;
}

const artifacts = new MemoryArtifactSource()
  .put('v1', artifactFromFiles({ 'worker.js': worker('v1') }))
  .put('v2', artifactFromFiles({ 'worker.js': worker('v2') }))
  .put('v3', artifactFromFiles({ 'worker.js': worker('v3') }))
  .put('v4', artifactFromFiles({ 'worker.js': worker('v4') }))
  .put('v5', artifactFromFiles({ 'worker.js': worker('v5') }))
  .put('v2-assets', artifactFromFiles({ 'worker.js': worker('v2-assets'), 'assets/page.html': 'page of v2' }));

const HOST = 'shop.demo.apps.test';
const base: AppDeployment = { project: 'demo', appId: 'shop', buildId: 'v1', env: { GREETING: 'old' }, hostnames: [] };
const split = (weight: number, affinity: CanaryDeployment['affinity'] = { header: 'x-user' }, canary: Partial<CanaryDeployment> = {}): AppDeployment => ({
  ...base,
  canary: { buildId: 'v2', env: { GREETING: 'new' }, weight, affinity, ...canary },
});

const body = (res: TestResponse) => JSON.parse(res.body) as { version: string; greeting: string; override: string | null };

function startEngine(dataDir: string): RuntimeEngine {
  return new RuntimeEngine({ artifacts, dataDir, baseDomain: 'apps.test', publicScheme: 'http', shards: 1, drainTimeoutMs: 2000, trustForwardedHeaders: true });
}

/** Each key's version, asking with `x-user: key`, a few requests at a time. */
async function versionsByKey(port: number, keys: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < keys.length; i += 25) {
    const batch = keys.slice(i, i + 25);
    const answers = await Promise.all(batch.map((key) => send(port, HOST, '/', { headers: { 'x-user': key } })));
    batch.forEach((key, j) => out.set(key, body(answers[j]!).version));
  }
  return out;
}

const keys = Array.from({ length: 2000 }, (_, i) => `user-${i}-${(i * 7919) % 1000}`);

describe('RuntimeEngine rollouts with workerd', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-rollout-'));
  const engine = startEngine(dataDir);
  let port = 0;

  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('splits keyed requests at the weight, by the contract hash, and no key goes back to stable as the weight rises', async () => {
    const served = await engine.deploy(split(30));
    expect(served).toMatchObject({ buildId: 'v1', canary: { buildId: 'v2', weight: 30 } });
    const at30 = await versionsByKey(port, keys);
    const onCanary = keys.filter((k) => at30.get(k) === 'v2');
    expect(onCanary.length / keys.length).toBeGreaterThanOrEqual(0.28);
    expect(onCanary.length / keys.length).toBeLessThanOrEqual(0.32);
    // Every key where the contract (what the operator and any other replica compute) puts it.
    expect(keys.filter((k) => keyOnCanary(k, 30) !== (at30.get(k) === 'v2'))).toEqual([]);

    await engine.deploy(split(60));
    const at60 = await versionsByKey(port, keys);
    expect(onCanary.filter((k) => at60.get(k) !== 'v2')).toEqual([]);
    const share60 = keys.filter((k) => at60.get(k) === 'v2').length / keys.length;
    expect(share60).toBeGreaterThanOrEqual(0.58);
    expect(share60).toBeLessThanOrEqual(0.62);
  });

  it('splits requests without a key at random, at the weight', async () => {
    await engine.deploy(split(30));
    const answers: string[] = [];
    for (let i = 0; i < 600; i += 30) answers.push(...(await Promise.all(Array.from({ length: 30 }, () => send(port, HOST, '/')))).map((r) => body(r).version));
    const share = answers.filter((v) => v === 'v2').length / answers.length;
    // 600 draws at 30 %: a standard deviation under 2 points.
    expect(share).toBeGreaterThan(0.22);
    expect(share).toBeLessThan(0.38);
  });

  it('sets the affinity cookie on a first answer and honours it after', async () => {
    await engine.deploy(split(50, { cookie: 'cw-rollout' }));
    const first = await send(port, HOST, '/');
    const setCookie = first.headers['set-cookie']?.[0] ?? '';
    const match = /^cw-rollout=([^;]+); Path=\/; Max-Age=86400; HttpOnly; SameSite=Lax$/.exec(setCookie);
    expect(match, setCookie).not.toBeNull();
    const key = match![1]!;
    const release = keyOnCanary(key, 50) ? 'v2' : 'v1';
    expect(body(first).version).toBe(release);
    for (let i = 0; i < 5; i++) {
      const again = await send(port, HOST, '/', { headers: { cookie: `theme=dark; cw-rollout=${key}` } });
      expect(body(again).version).toBe(release);
      expect(again.headers['set-cookie']).toBeUndefined();
    }
    // A cookie the runtime did not sign is not honoured (found in review: anyone could compute keys that land on the
    // release they want, and flood it): the answer comes from a new key, which it sets.
    // Nor one another app gave (found in review: keys harvested from one's own app's rollout worked on any app).
    await engine.deploy({ ...split(50, { cookie: 'cw-rollout' }), appId: 'elsewhere' });
    const elsewhere = /^cw-rollout=([^;]+);/.exec((await send(port, 'elsewhere.demo.apps.test', '/')).headers['set-cookie']?.[0] ?? '')?.[1];
    expect(elsewhere).toBeDefined();
    await engine.remove('demo', 'elsewhere');
    const forged = [`${key.slice(0, key.lastIndexOf('.'))}.AAAAAAAAAAAAAAAAAAAAAA`, 'k18041', 's2817', 'no-dot', elsewhere!];
    for (const value of forged) {
      const answer = await send(port, HOST, '/', { headers: { cookie: `cw-rollout=${value}` } });
      const issued = /^cw-rollout=([^;]+);/.exec(answer.headers['set-cookie']?.[0] ?? '')?.[1];
      expect(issued, value).toBeDefined();
      expect(issued).not.toBe(value);
      expect(body(answer).version, value).toBe(keyOnCanary(issued!, 50) ? 'v2' : 'v1');
    }
    // Behind an ingress that terminated TLS (a trusted X-Forwarded-Proto), the cookie is Secure.
    const overHttps = await send(port, HOST, '/', { headers: { 'x-forwarded-proto': 'https' } });
    expect(overHttps.headers['set-cookie']?.[0]).toMatch(/^cw-rollout=[^;]+; Path=\/; Max-Age=86400; HttpOnly; SameSite=Lax; Secure$/);
  });

  it('forces a release by the override header at weight 0 and 100, and the app never sees it', async () => {
    await engine.deploy(split(0));
    const at0 = async (value: string) => body(await send(port, HOST, '/', { headers: { 'cw-rollout-build': value, 'x-user': 'someone' } }));
    expect(await at0('canary')).toEqual({ version: 'v2', greeting: 'new', override: null });
    expect(await at0('v2')).toMatchObject({ version: 'v2' });
    expect(await at0('stable')).toMatchObject({ version: 'v1' });
    expect(await at0('v9')).toEqual({ version: 'v1', greeting: 'old', override: null }); // names neither: ignored
    // A request with a body keeps it when the header is taken off.
    const posted = await send(port, HOST, '/echo', { method: 'POST', body: 'x'.repeat(100_000), headers: { 'cw-rollout-build': 'canary' } });
    expect(posted.body).toBe(`v2 POST ${'x'.repeat(100_000)} null`);
    await engine.deploy(split(100));
    const at100 = async (value: string) => body(await send(port, HOST, '/', { headers: { 'cw-rollout-build': value } }));
    expect(await at100('stable')).toEqual({ version: 'v1', greeting: 'old', override: null });
    expect(await at100('v1')).toMatchObject({ version: 'v1' });
    expect(await at100('nonsense')).toMatchObject({ version: 'v2' });
    expect(body(await send(port, HOST, '/'))).toMatchObject({ version: 'v2' });
  });

  it('splits an environment-only rollout (same build, another environment)', async () => {
    await engine.deploy(split(50, { header: 'x-user' }, { buildId: 'v1' }));
    const sample = keys.slice(0, 200);
    const greetings = new Map<string, string>();
    for (let i = 0; i < sample.length; i += 25) {
      const batch = sample.slice(i, i + 25);
      const answers = await Promise.all(batch.map((key) => send(port, HOST, '/', { headers: { 'x-user': key } })));
      batch.forEach((key, j) => greetings.set(key, body(answers[j]!).greeting));
    }
    expect(sample.filter((k) => greetings.get(k) !== (keyOnCanary(k, 50) ? 'new' : 'old'))).toEqual([]);
    expect(new Set(greetings.values())).toEqual(new Set(['old', 'new']));
    expect(body(await send(port, HOST, '/', { headers: { 'cw-rollout-build': 'canary' } }))).toEqual({ version: 'v1', greeting: 'new', override: null });
  });

  it('counts requests and errors per release since the split began, 500s and exceptions as errors', async () => {
    await engine.deploy(split(40, { header: 'x-user' }, { env: { GREETING: 'counted' } })); // a new pair of releases: counts from zero
    expect((await engine.rolloutCounts()).get('demo/shop')).toMatchObject({ stable: { requests: 0, errors: 0 }, canary: { requests: 0, errors: 0 } });
    // Users whose key the split sends to each release.
    const onStable = keys.filter((k) => !keyOnCanary(k, 40)).slice(0, 8);
    const onCanary = keys.filter((k) => keyOnCanary(k, 40)).slice(0, 9);
    const as = (user: string, path: string) => send(port, HOST, path, { headers: { 'x-user': user } });
    const sent: Array<Promise<TestResponse>> = [];
    onStable.forEach((user, i) => sent.push(as(user, i === 7 ? '/fail' : '/')));
    onCanary.forEach((user, i) => sent.push(as(user, i < 5 ? '/' : i < 8 ? '/fail' : '/throw')));
    const statuses = (await Promise.all(sent)).map((r) => r.status);
    expect(statuses.filter((s) => s === 500)).toHaveLength(5);
    expect((await engine.rolloutCounts()).get('demo/shop')).toMatchObject({ stable: { requests: 8, errors: 1 }, canary: { requests: 9, errors: 4 } });
    // A request that names its release is served by it, but not counted: anyone may send the header, and its
    // answers would sway the analysis (a flood of good answers hiding a broken release, or of failures aborting a good one).
    const force = (release: string, path: string) => send(port, HOST, path, { headers: { 'cw-rollout-build': release } });
    const forced = await Promise.all([force('canary', '/'), force('canary', '/fail'), force('stable', '/fail')]);
    expect(forced.map((r) => r.status)).toEqual([200, 500, 500]);
    expect((await engine.rolloutCounts()).get('demo/shop')).toMatchObject({ stable: { requests: 8, errors: 1 }, canary: { requests: 9, errors: 4 } });
    // One key counts a few times a minute, however many requests it sends (found in review: a client's flood on the
    // release its key chose could abort a good rollout or hide a broken one's errors); all are served.
    const flooder = keys.filter((k) => !keyOnCanary(k, 40))[20]!;
    const flood = await Promise.all(Array.from({ length: 12 }, () => as(flooder, '/fail')));
    expect(flood.every((r) => r.status === 500)).toBe(true);
    expect((await engine.rolloutCounts()).get('demo/shop')).toMatchObject({ stable: { requests: 13, errors: 6 }, canary: { requests: 9, errors: 4 } });
    // A weight change is the same pair of releases: the counts go on.
    await engine.deploy(split(45, { header: 'x-user' }, { env: { GREETING: 'counted' } }));
    await as(onCanary[0]!, '/');
    expect((await engine.rolloutCounts()).get('demo/shop')).toMatchObject({ stable: { requests: 13, errors: 6 }, canary: { requests: 10, errors: 4 } });
    // The metrics' per-build answers of the app.
    const builds = (await engine.requestStats()).get('demo/shop')?.builds ?? {};
    expect(builds['v2']?.classes[4]).toBeGreaterThanOrEqual(4);
    expect(builds['v1']?.classes[4]).toBeGreaterThanOrEqual(1);
    // Aborted (the stable release alone), then tried again: the same pair, a new run, counted from zero.
    await engine.deploy(base);
    await engine.deploy(split(45, { header: 'x-user' }, { env: { GREETING: 'counted' } }));
    expect((await engine.rolloutCounts()).get('demo/shop')).toMatchObject({ stable: { requests: 0, errors: 0 }, canary: { requests: 0, errors: 0 } });
    await as(onCanary[0]!, '/');
    expect((await engine.rolloutCounts()).get('demo/shop')).toMatchObject({ stable: { requests: 0, errors: 0 }, canary: { requests: 1, errors: 0 } });
  });

  it('keeps the per-build counts of the current pair of releases and of the latest builds before, four in all', async () => {
    const app: AppDeployment = { ...base, appId: 'builds' };
    const force = (release: string) => send(port, 'builds.demo.apps.test', '/', { headers: { 'cw-rollout-build': release } });
    for (const buildId of ['v2', 'v3', 'v4', 'v5']) {
      await engine.deploy({ ...app, canary: { buildId, env: {}, weight: 0, affinity: { header: 'x-user' } } });
      if (buildId === 'v2') expect(body(await force('stable'))).toMatchObject({ version: 'v1' });
      expect(body(await force('canary'))).toMatchObject({ version: buildId });
    }
    // v2, the earliest build but the pair (v1, v5), was let go; its answer stays in the app's totals.
    const counts = (await engine.requestStats()).get('demo/builds');
    expect(Object.keys(counts?.builds ?? {}).sort()).toEqual(['v1', 'v3', 'v4', 'v5']);
    expect(counts?.count).toBe(5);
    await engine.remove('demo', 'builds');
  });

  it('sends both releases’ logs to the app’s stream, each entry with its build', async () => {
    await engine.deploy(split(50));
    const seen: Array<{ buildId: string; url?: string; requestId?: string }> = [];
    let both: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (both = resolve));
    // Resolves once the app's isolates report to the tail worker.
    const leave = await engine.followLogs('demo/shop', (entry) => {
      if (entry.request?.url.endsWith('/logged')) seen.push({ buildId: entry.buildId, url: entry.request.url, ...(entry.requestId ? { requestId: entry.requestId } : {}) });
      if (seen.length === 2) both();
    });
    try {
      await send(port, HOST, '/logged', { headers: { 'cw-rollout-build': 'stable' } });
      await send(port, HOST, '/logged', { headers: { 'cw-rollout-build': 'canary' } });
      await arrived;
    } finally {
      leave();
    }
    expect(seen.map((e) => e.buildId).sort()).toEqual(['v1', 'v2']);
    // Each entry names its request: the id the entry point gave it (a UUID: these requests came without one).
    expect(seen.map((e) => e.requestId)).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), expect.stringMatching(/^[0-9a-f-]{36}$/)]);
  });

  it('serves a new release with static assets of its own beside a stable release without', async () => {
    await engine.deploy(split(50, { header: 'x-user' }, { buildId: 'v2-assets' }));
    const forced = (release: string, path: string) => send(port, HOST, path, { headers: { 'cw-rollout-build': release } });
    const page = await forced('canary', '/page');
    expect([page.status, page.headers.location, page.body]).toEqual([200, undefined, 'page of v2']);
    expect(body(await forced('canary', '/'))).toMatchObject({ version: 'v2-assets' }); // not an asset: its own isolate
    expect(body(await forced('stable', '/page'))).toMatchObject({ version: 'v1' });
  });

  it('an app without a rollout has no counts read', async () => {
    await engine.deploy(base);
    expect(engine.served('demo', 'shop')?.canary).toBeUndefined();
    expect(await engine.rolloutCounts()).toEqual(new Map());
    expect(body(await send(port, HOST, '/', { headers: { 'cw-rollout-build': 'v2' } }))).toMatchObject({ version: 'v1', override: 'v2' });
  });

  it('keeps every key on its release across a runtime restart (a new engine on the same plan)', async () => {
    await engine.deploy(split(30));
    const sample = keys.slice(0, 300);
    const before = await versionsByKey(port, sample);
    const otherDir = mkdtempSync(join(tmpdir(), 'cw-rt-rollout2-'));
    const restarted = startEngine(otherDir);
    try {
      await restarted.start();
      await restarted.deploy(split(30));
      const after = await versionsByKey(restarted.address.port, sample);
      expect(sample.filter((k) => after.get(k) !== before.get(k))).toEqual([]);
    } finally {
      await restarted.stop();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
