// A rollout whose new release stops its shard, against the real workerd: the app loses its new release on this
// replica instead of being quarantined whole, and a stop of its stable release afterwards quarantines it as usual.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import type { AppDeployment } from './ports.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';

/** Says its version; `/loop` never yields. */
const worker = (version: string) => `export default {
  fetch(request) {
    if (new URL(request.url).pathname === '/loop') for (;;) {}
    return new Response(${JSON.stringify(version)});
  },
};
`;

const artifacts = new MemoryArtifactSource().put('v1', artifactFromFiles({ 'worker.js': worker('v1') })).put('v2', artifactFromFiles({ 'worker.js': worker('v2') }));
const HOST = 'shop.demo.apps.test';
const KEY = 'demo/shop';
const split: AppDeployment = {
  project: 'demo',
  appId: 'shop',
  buildId: 'v1',
  env: {},
  hostnames: [],
  canary: { buildId: 'v2', env: {}, weight: 50, affinity: { header: 'x-user' } },
};

describe('RuntimeEngine: a rollout whose new release stops its shard', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-rollout-lim-'));
  const engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'apps.test', publicScheme: 'http', shards: 1, limits: { cpuLimitMs: 300 }, quarantine: { initialMs: 60_000 } });
  let port = 0;

  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('suspends the new release (counted as its error) and keeps the stable release serving; a stop of the stable release then quarantines the app', async () => {
    await engine.deploy(split);
    expect((await send(port, HOST, '/', { headers: { 'cw-rollout-build': 'canary' } })).body).toBe('v2');
    const stopped = await send(port, HOST, '/loop', { headers: { 'cw-rollout-build': 'canary' } });
    expect(stopped.status).toBe(503);
    // Asked again at once, while the shard starts again: served by the stable release, never by the new one (the
    // fresh workerd starts with the table that no longer has it, not the table the stopped one had).
    expect((await send(port, HOST, '/', { headers: { 'cw-rollout-build': 'canary' } })).body).toBe('v1');
    await expect.poll(() => engine.served('demo', 'shop')?.canary, { timeout: 20_000 }).toEqual({ buildId: 'v2', weight: 0, suspended: true });
    expect(engine.limits.quarantine(KEY)).toBeUndefined();
    expect(engine.logs.recent(KEY).at(-1)).toMatchObject({ buildId: 'v2', outcome: 'exceededCpu' });
    // The stable release serves every request, keyed or forced.
    await expect.poll(async () => (await send(port, HOST, '/', { headers: { 'x-user': 'u1' } })).body, { timeout: 20_000 }).toBe('v1');
    for (const user of ['u2', 'u3', 'u4', 'u5', 'u6']) expect((await send(port, HOST, '/', { headers: { 'x-user': user } })).body).toBe('v1');
    expect((await send(port, HOST, '/', { headers: { 'cw-rollout-build': 'canary' } })).body).toBe('v1');
    const counts = (await engine.rolloutCounts()).get(KEY);
    expect(counts?.canary.errors).toBeGreaterThanOrEqual(1);
    // Asked again at another weight: still suspended (the same pair of releases).
    await engine.deploy({ ...split, canary: { ...split.canary!, weight: 80 } });
    expect(engine.served('demo', 'shop')?.canary).toEqual({ buildId: 'v2', weight: 0, suspended: true });

    // Now the stable release loops: no new release left to blame, the app is quarantined as any other.
    expect((await send(port, HOST, '/loop')).status).toBe(503);
    await expect.poll(() => engine.limits.quarantine(KEY)?.reason, { timeout: 20_000 }).toBe('CPULimitExceeded');
  });
});
