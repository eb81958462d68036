// The bounds on apps' code, against the real workerd: an app looping or growing without bound ends its shard's
// workerd (not the replica), is quarantined, and another project's app on the other shard keeps answering.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send, type TestResponse } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';
import { latencySummary, whileProbing } from './testing/probe-latency.ts';

/** A worker that answers at once, and `/think?ms=N` after N ms (awaiting a timer: waiting, not computing). */
const CALM = `export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === '/think') await new Promise((resolve) => setTimeout(resolve, Number(url.searchParams.get('ms') ?? 1000)));
    return new Response('calm ' + url.pathname);
  },
};
`;

/**
 * What a hostile tenant deploys: `/loop` never yields, `/later?ms=N` waits N ms (looking innocent) then never
 * yields, `/grow` fills its heap, `/buffers` grows outside the heap while yielding.
 */
const HOSTILE = `export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === '/loop') for (;;) {}
    if (url.pathname === '/later') { await scheduler.wait(Number(url.searchParams.get('ms'))); for (;;) {} }
    if (url.pathname === '/grow') { const kept = []; for (;;) kept.push(new Array(100000).fill(Math.random())); }
    if (url.pathname === '/buffers') { const kept = []; for (;;) { kept.push(new Uint8Array(16 * 1024 * 1024).fill(1)); await scheduler.wait(1); } }
    return new Response('hostile ok');
  },
};
`;

const artifacts = new MemoryArtifactSource().put('calm', artifactFromFiles({ 'worker.js': CALM })).put('hostile', artifactFromFiles({ 'worker.js': HOSTILE }));

const CPU_LIMIT_MS = 300;

describe('RuntimeEngine bounding apps', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-lim-'));
  process.env.CW_TEST_RUNTIME_SECRET = 'never-for-workerd';
  const engine = new RuntimeEngine({
    artifacts,
    dataDir,
    baseDomain: 'apps.test',
    publicScheme: 'http',
    shards: 2,
    // The rules that judge from the requests in flight (`blame.ts`) are what these tests try; asking the thread
    // itself (`running-app.ts`) is tried below.
    limits: { cpuLimitMs: CPU_LIMIT_MS, isolateHeapMb: 32, shardMemoryMb: 400, askTheThread: false },
    // Held requests wait long enough for a stop and a restart on a busy machine (these tests pass at the default
    // 5 s on a quiet one).
    quarantine: { initialMs: 60_000, probationWaitMs: 10_000, probationTurnMs: 2_000 },
  });
  let port = 0;
  /** Project names: three on the shard the attacks hit, one on the other shard. */
  const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike', 'november', 'oscar'];
  let attacked = -1;
  const projects = { tenant: '', neighbour: '', sly: '', hoarder: '', rogue: '', victim: '' };

  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
    attacked = engine.shardOf('alpha');
    projects.tenant = 'alpha';
    projects.neighbour = names.find((p) => p !== 'alpha' && engine.shardOf(p) === attacked)!;
    projects.sly = names.find((p) => p !== 'alpha' && p !== projects.neighbour && engine.shardOf(p) === attacked)!;
    projects.hoarder = names.find((p) => !['alpha', projects.neighbour, projects.sly].includes(p) && engine.shardOf(p) === attacked)!;
    projects.rogue = names.find((p) => !['alpha', projects.neighbour, projects.sly, projects.hoarder].includes(p) && engine.shardOf(p) === attacked)!;
    projects.victim = names.find((p) => engine.shardOf(p) !== attacked)!;
    await engine.deploy({ project: projects.victim, appId: 'victim', buildId: 'calm', env: {}, hostnames: [] });
    await engine.deploy({ project: projects.neighbour, appId: 'neighbour', buildId: 'calm', env: {}, hostnames: [] });
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
    delete process.env.CW_TEST_RUNTIME_SECRET;
  });

  /** Runs `attack` while the victim (another project, on the other shard) is asked one request after another, each answered 200. */
  async function underAttack(attack: () => Promise<TestResponse>): Promise<{ answer: TestResponse; victimMs: number[] }> {
    const probe = async () => expect((await send(port, `victim.${projects.victim}.apps.test`)).status).toBe(200);
    const { result, latenciesMs } = await whileProbing(probe, attack);
    return { answer: result, victimMs: latenciesMs };
  }

  /** Waits until the attacked shard serves again after a stop (a workerd other than `pid`, answering its health checks). */
  async function restarted(pid: number): Promise<void> {
    await expect
      .poll(() => {
        const shard = engine.status().shards[attacked]!;
        return shard.ready && shard.pid !== pid;
      })
      .toBe(true);
  }

  it('gives workerd none of the runtime process environment', () => {
    for (const shard of engine.status().shards) {
      const environ = readFileSync(`/proc/${shard.pid}/environ`, 'utf8').split('\0').filter(Boolean);
      // Beside TZ, only what `stdbuf -oL` sets to have its output flushed a line at a time (`workerd-process.ts`).
      expect(environ.filter((entry) => !/^(LD_PRELOAD=\/usr\/libexec\/coreutils\/libstdbuf\.so|_STDBUF_O=L)$/.test(entry))).toEqual(['TZ=UTC']);
    }
    expect(process.env.CW_TEST_RUNTIME_SECRET).toBe('never-for-workerd');
  });

  it('quarantines an app that fills its heap with MemoryLimitExceeded; the other shard keeps serving', async () => {
    await engine.deploy({ project: projects.tenant, appId: 'hog', buildId: 'hostile', env: {}, hostnames: [] });
    const { answer, victimMs } = await underAttack(() => send(port, `hog.${projects.tenant}.apps.test`, '/grow'));
    console.log(`heap-filling app: the victim on the other shard meanwhile: ${latencySummary(victimMs)}`);
    expect(answer.status).toBe(503);
    await expect.poll(() => engine.limits.quarantine(`${projects.tenant}/hog`)?.reason).toBe('MemoryLimitExceeded');
    expect(engine.logs.recent(`${projects.tenant}/hog`).at(-1)).toMatchObject({ outcome: 'exceededMemory', request: { url: '/grow' } });
    expect(JSON.parse((await send(port, `hog.${projects.tenant}.apps.test`)).body)).toMatchObject({ reason: 'MemoryLimitExceeded' });
    expect(engine.limits.counts().stops.get('heap')).toBe(1);
    expect(engine.status().shards[1 - attacked]!.restarts).toBe(0);
  });

  it('ends a shard whose memory passes its bound outside the heap, while yielding, and quarantines the app', async () => {
    await engine.deploy({ project: projects.tenant, appId: 'buffers', buildId: 'hostile', env: {}, hostnames: [] });
    const { answer, victimMs } = await underAttack(() => send(port, `buffers.${projects.tenant}.apps.test`, '/buffers'));
    console.log(`buffer-growing app: the victim on the other shard meanwhile: ${latencySummary(victimMs)}`);
    expect(answer.status).toBe(503);
    expect(engine.limits.quarantine(`${projects.tenant}/buffers`)).toMatchObject({ reason: 'MemoryLimitExceeded' });
    expect(engine.limits.counts().stops.get('memory')).toBe(1);
  });

  it('ends a shard stuck in a loop within the CPU bound, quarantines the app with CPULimitExceeded, and keeps the other shard serving', async () => {
    const key = `${projects.tenant}/looper`;
    await engine.deploy({ project: projects.tenant, appId: 'looper', buildId: 'hostile', env: {}, hostnames: [] });
    const before = engine.status().shards;
    const t0 = performance.now();
    const { answer, victimMs } = await underAttack(() => send(port, `looper.${projects.tenant}.apps.test`, '/loop'));
    const stoppedAfterMs = performance.now() - t0;
    console.log(`looping app: stopped after ${stoppedAfterMs.toFixed(0)} ms; the victim on the other shard meanwhile: ${latencySummary(victimMs)}`);
    expect(answer.status).toBe(503);
    // 300 ms of CPU time: about as much wall time on a free core, more on a machine busy with other tests
    // (the looping thread then gets part of a core).
    expect(stoppedAfterMs).toBeGreaterThanOrEqual(CPU_LIMIT_MS);
    expect(stoppedAfterMs).toBeLessThan(20_000);
    // The victim was answered all along: several times while the looper's shard was stuck.
    expect(victimMs.length).toBeGreaterThan(2);
    expect(Math.max(...victimMs)).toBeLessThan(1000);

    expect(engine.limits.quarantine(`${projects.tenant}/looper`)).toMatchObject({ reason: 'CPULimitExceeded', offences: 1 });
    const refused = await send(port, `looper.${projects.tenant}.apps.test`);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(50);
    expect(JSON.parse(refused.body)).toMatchObject({ title: 'Service Unavailable', status: 503, reason: 'CPULimitExceeded' });
    expect(JSON.parse(refused.body).detail).toMatch(/ran for more than 300 ms without yielding/);
    expect(engine.entryRefusals.get(key)).toBe(1); // answered by the entry point: the metrics window counts it as refused
    // The app's log (cw logs) says what happened to which request.
    expect(engine.logs.recent(key).at(-1)).toMatchObject({ outcome: 'exceededCpu', request: { method: 'GET', url: '/loop' }, status: 503 });

    // Only the attacked shard was restarted, and it serves its other apps again.
    await restarted(before[attacked]!.pid);
    const after = engine.status().shards;
    expect(after[attacked]!.restarts).toBe(before[attacked]!.restarts + 1);
    expect(after[1 - attacked]!.pid).toBe(before[1 - attacked]!.pid);
    await expect.poll(async () => (await send(port, `neighbour.${projects.neighbour}.apps.test`)).status).toBe(200);
    expect(engine.status().ready).toBe(true);
    expect(engine.limits.counts().stops).toEqual(
      new Map([
        ['heap', 1],
        ['memory', 1],
        ['cpu', 1],
      ]),
    );
  });

  it('holds back a project whose apps were quarantined three times: a fresh app of it is not served either', async () => {
    // The tests above quarantined three of the tenant's apps (heap, memory, loop).
    await engine.deploy({ project: projects.tenant, appId: 'fresh', buildId: 'hostile', env: {}, hostnames: [] });
    const fresh = await send(port, `fresh.${projects.tenant}.apps.test`, '/loop');
    expect(fresh.status).toBe(503);
    expect(JSON.parse(fresh.body)).toMatchObject({ reason: expect.stringMatching(/LimitExceeded$/), detail: expect.stringContaining('project is held back') });
    expect(engine.limits.quarantine(`${projects.tenant}/fresh`)).toMatchObject({ project: true });
    expect((await send(port, `neighbour.${projects.neighbour}.apps.test`)).status).toBe(200);
  });

  it('does not quarantine an app that merely had a request in flight on the stuck shard: suspects take turns until one is alone', async () => {
    // Another tenant than the one held back above.
    await engine.deploy({ project: projects.sly, appId: 'sly', buildId: 'hostile', env: {}, hostnames: [] });
    const neighbour = `neighbour.${projects.neighbour}.apps.test`;
    // The neighbour (another project, same shard) awaits a timer: from outside it looks like the looper.
    const waiting = send(port, neighbour, '/think?ms=5000');
    await expect.poll(async () => (await engine.requestStats()).get(`${projects.neighbour}/neighbour`)?.active).toBe(1);
    const { pid } = engine.status().shards[attacked]!;
    expect((await send(port, `sly.${projects.sly}.apps.test`, '/loop')).status).toBe(503);
    expect((await waiting).status).toBe(503); // restarted under it, and not sent again: a stop judged from the requests
    expect(engine.limits.quarantine(`${projects.sly}/sly`)).toBeUndefined();
    expect(engine.limits.quarantine(`${projects.neighbour}/neighbour`)).toBeUndefined();
    expect(engine.limits.onProbation().sort()).toEqual([`${projects.neighbour}/neighbour`, `${projects.sly}/sly`].sort());

    // On probation they take turns: while the looper's request is in flight (waiting, then looping), the
    // neighbour's request waits for its turn, so the next stall has one suspect; then it is served.
    await restarted(pid);
    // Long enough for the test to see it in flight on a busy machine.
    const looping = send(port, `sly.${projects.sly}.apps.test`, '/later?ms=1500');
    await expect.poll(async () => (await engine.requestStats()).get(`${projects.sly}/sly`)?.active).toBe(1);
    const turn = await send(port, neighbour);
    expect(turn.status).toBe(200);
    expect((await looping).status).toBe(503);
    // The looper was alone this time: it is blamed, and the neighbour was not.
    expect(engine.limits.quarantine(`${projects.sly}/sly`)).toMatchObject({ reason: 'CPULimitExceeded' });
    expect(engine.limits.quarantine(`${projects.neighbour}/neighbour`)).toBeUndefined();
    expect((await send(port, neighbour)).status).toBe(200);
  });

  it('cuts short the requests of a project on probation that keeps its turn while another waits', async () => {
    await engine.deploy({ project: projects.hoarder, appId: 'hoarder', buildId: 'hostile', env: {}, hostnames: [] });
    const neighbour = `neighbour.${projects.neighbour}.apps.test`;
    const hoarder = `hoarder.${projects.hoarder}.apps.test`;
    // A stall shared with the neighbour puts the hoarder on probation beside it.
    const waiting = send(port, neighbour, '/think?ms=5000');
    await expect.poll(async () => (await engine.requestStats()).get(`${projects.neighbour}/neighbour`)?.active).toBe(1);
    const { pid } = engine.status().shards[attacked]!;
    expect((await send(port, hoarder, '/loop')).status).toBe(503);
    await waiting;
    expect(engine.limits.onProbation()).toContain(`${projects.hoarder}/hoarder`);
    await restarted(pid);
    const fresh = engine.status().shards[attacked]!.pid;

    // It takes the turn with a request that would hold it for a minute.
    const hoarding = send(port, hoarder, '/later?ms=60000');
    await expect.poll(async () => (await engine.requestStats()).get(`${projects.hoarder}/hoarder`)?.active).toBe(1);
    const started = Date.now();
    const serving = send(port, neighbour);
    await expect.poll(() => engine.heldRequests).toBe(1);
    const served = await serving;
    const waitedMs = Date.now() - started;
    expect(engine.heldRequests).toBe(0);
    expect(served.status).toBe(200);
    expect(waitedMs).toBeGreaterThanOrEqual(2_000);
    const cut = await hoarding;
    expect(cut.status).toBe(503);
    expect(JSON.parse(cut.body)).toMatchObject({ reason: 'Probation', detail: expect.stringContaining('cut short') });
    // Nothing stopped the shard: nobody was blamed.
    expect(engine.status().shards[attacked]!.pid).toBe(fresh);
    expect(engine.limits.quarantine(`${projects.hoarder}/hoarder`)).toBeUndefined();
  });

  it('serves a busy neighbour while a looper on its shard is found: it loses at most its request in flight at each stop', async () => {
    await engine.deploy({ project: projects.rogue, appId: 'rogue', buildId: 'hostile', env: {}, hostnames: [] });
    const rogue = `${projects.rogue}/rogue`;
    const neighbour = `neighbour.${projects.neighbour}.apps.test`;
    const answers: Array<{ status: number; ms: number }> = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const started = Date.now();
        const { status } = await send(port, neighbour);
        answers.push({ status, ms: Date.now() - started });
      }
    })();
    await expect.poll(() => answers.length).toBeGreaterThan(10);
    let stops = 0;
    const deadline = Date.now() + 30_000;
    while (!engine.limits.quarantine(rogue) && stops < 6 && Date.now() < deadline) {
      const { pid } = engine.status().shards[attacked]!;
      const loop = await send(port, `rogue.${projects.rogue}.apps.test`, '/loop');
      expect(loop.status).toBe(503);
      if (loop.body.includes('"reason"')) continue; // refused without running (its turn, or quarantined now)
      stops += 1;
      await restarted(pid);
    }
    probing = false;
    await probe;
    const refused = answers.filter((a) => a.status !== 200);
    console.log(
      `looper on a busy neighbour's shard: found after ${stops} stops; the neighbour: ${answers.length} requests, ${refused.length} refused (the first: ${JSON.stringify(refused.slice(0, 5))}), ${latencySummary(answers.map((a) => a.ms))}`,
    );
    expect(engine.limits.quarantine(rogue)).toMatchObject({ reason: 'CPULimitExceeded' });
    expect(engine.limits.quarantine(`${projects.neighbour}/neighbour`)).toBeUndefined();
    expect(refused.length).toBeLessThanOrEqual(stops);
  });
});
