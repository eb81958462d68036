// The checker's turns, against the real workerd: every project's new code loads in the one checker workerd before a
// shard serves it, and a pass answers its deploys when it ends. A tenant deploying many builds that compute at
// their top level has most of them left for later passes, so another project's deploy does not wait for them all.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';

/** Computes at its top level (about 100–300 ms here), then answers at once. */
const HEAVY = `let x = 0;
for (let i = 0; i < 15_000_000; i += 1) x = (x + Math.sqrt(i)) % 1e9;
export default { fetch() { return new Response('heavy ' + (x > 0)); } };
`;
const CALM = `export default { fetch(req, env) { return new Response('calm ' + (env.N ?? '')); } };
`;

const artifacts = new MemoryArtifactSource().put('heavy', artifactFromFiles({ 'worker.js': HEAVY })).put('calm', artifactFromFiles({ 'worker.js': CALM }));

const TENANT_APPS = 12;

describe('RuntimeEngine: the checker’s turns', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-turns-'));
  // A load may take 400 + 400 ms of CPU time (the heavy build fits); a project’s checks take 250 ms of the checker in
  // a pass before the rest wait. The shards’ budget for cold starts is off (the heavy apps’ first requests would spend it).
  const engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'apps.test', publicScheme: 'http', shards: 1, limits: { cpuLimitMs: 400, startupLimitMs: 400, startupBudgetMsPerMinute: 0 } });

  beforeAll(async () => {
    await engine.start();
    await engine.deploy({ project: 'victim', appId: 'site', buildId: 'calm', env: { N: '0' }, hostnames: [] });
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers another project’s deploy after a turn of the tenant’s checks, not all of them; the tenant’s are all served', async () => {
    const started = performance.now();
    const tenant = Array.from({ length: TENANT_APPS }, (_, i) =>
      engine.deploy({ project: 'tenant', appId: `heavy-${i}`, buildId: 'heavy', env: { N: String(i) }, hostnames: [] }).then(() => performance.now() - started),
    );
    // After the tenant's: a queue in order of arrival would have it wait for them all.
    const victim = await engine.deploy({ project: 'victim', appId: 'site', buildId: 'calm', env: { N: '1' }, hostnames: [] }).then(() => performance.now() - started);
    const tenantTimes = await Promise.all(tenant);
    const last = Math.max(...tenantTimes);
    console.log(`the victim's deploy answered in ${victim.toFixed(0)} ms; the tenant's ${TENANT_APPS} in ${Math.min(...tenantTimes).toFixed(0)}–${last.toFixed(0)} ms`);
    expect(victim).toBeLessThan(last / 2);
    expect((await send(engine.address.port, 'site.victim.apps.test')).body).toBe('calm 1');
    for (let i = 0; i < TENANT_APPS; i += 1) expect((await send(engine.address.port, `heavy-${i}.tenant.apps.test`)).body).toBe('heavy true');
  });
});
