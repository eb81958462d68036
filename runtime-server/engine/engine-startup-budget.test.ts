// Each project's budget of CPU time for cold starts, against the real workerd: a tenant whose code computes at its top
// level and who starts it anew at will (a changed variable is a new isolate) is charged each load and then refused,
// while another project's app on the same shard keeps answering and starting.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';
import { latencySummary, whileProbing } from './testing/probe-latency.ts';

/** Computes at its top level (about 100–300 ms here: `Date.now()` stands still while code runs, so a count of steps), then answers at once. */
const HEAVY = `let x = 0;
for (let i = 0; i < 15_000_000; i += 1) x = (x + Math.sqrt(i)) % 1e9;
export default { fetch() { return new Response('heavy ' + (x > 0)); } };
`;
const CALM = `export default { fetch() { return new Response('calm'); } };
`;

const artifacts = new MemoryArtifactSource().put('heavy', artifactFromFiles({ 'worker.js': HEAVY })).put('calm', artifactFromFiles({ 'worker.js': CALM }));

/** 600 ms a minute: 10 ms come back each second, so a refused load stays refused for the test's length. */
const BUDGET_MS = 600;

describe('RuntimeEngine: each project’s startup budget', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-sb-'));
  // One shard: the tenant and the victim share its thread.
  const engine = new RuntimeEngine({
    artifacts,
    dataDir,
    baseDomain: 'apps.test',
    publicScheme: 'http',
    shards: 1,
    limits: { startupBudgetMsPerMinute: BUDGET_MS, startupBudgetWaitMs: 1000 },
  });
  let port = 0;

  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
    await engine.deploy({ project: 'victim', appId: 'site', buildId: 'calm', env: {}, hostnames: [] });
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('charges a tenant each cold start it causes and refuses its next load past the budget; another project is untouched', async () => {
    await engine.deploy({ project: 'tenant', appId: 'heavy', buildId: 'heavy', env: { N: '0' }, hostnames: [] });
    expect((await send(port, 'heavy.tenant.apps.test')).status).toBe(200);
    const charged = BUDGET_MS - engine.startupBudgetLeft('tenant');
    console.log(`one load of the heavy build was charged ${charged.toFixed(1)} ms`);
    expect(charged).toBeGreaterThan(30);
    expect(engine.startupBudgetLeft('victim')).toBe(BUDGET_MS);

    // The attack: a changed variable, then a request, each a fresh isolate computing its top level on the shared thread.
    let refused: Awaited<ReturnType<typeof send>> | undefined;
    const { latenciesMs } = await whileProbing(
      async () => expect((await send(port, 'site.victim.apps.test')).status).toBe(200),
      async () => {
        for (let n = 1; n <= 30 && !refused; n += 1) {
          await engine.deploy({ project: 'tenant', appId: 'heavy', buildId: 'heavy', env: { N: String(n) }, hostnames: [] });
          const answer = await send(port, 'heavy.tenant.apps.test');
          if (answer.status !== 200) refused = answer;
        }
      },
    );
    console.log(`the victim on the same shard meanwhile: ${latencySummary(latenciesMs)}`);
    expect(refused?.status).toBe(503);
    expect(JSON.parse(refused!.body)).toMatchObject({ status: 503, reason: 'StartupBudgetExceeded' });
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(engine.coldStartsRefused).toBeGreaterThanOrEqual(1);
    // Refused, not loaded: asked again at once, refused again, and the budget is not charged for it.
    const left = engine.startupBudgetLeft('tenant');
    expect((await send(port, 'heavy.tenant.apps.test')).status).toBe(503);
    expect(engine.startupBudgetLeft('tenant')).toBeGreaterThanOrEqual(left);

    // The victim's own deploys still start at once.
    await engine.deploy({ project: 'victim', appId: 'site', buildId: 'calm', env: { CHANGED: 'yes' }, hostnames: [] });
    expect((await send(port, 'site.victim.apps.test')).status).toBe(200);
  });
});
