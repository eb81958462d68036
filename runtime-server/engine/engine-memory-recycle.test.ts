// A shard whose workerd holds more memory than its recycle point (below the watchdog's bound) is replaced by a
// fresh workerd, blue/green, against the real workerd: no request is lost, nobody is blamed or quarantined, and
// the memory goes with the old process. What an installation needs when isolates loaded over a busy hour, not
// one app, fill the shard: before, the bound ended the workerd and quarantined whichever app was in flight.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveWorkerdBinary } from '../../src/app-artifacts/workerd-binary.ts';
import { RuntimeEngine } from './engine.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';
import { residentBytes } from './watchdog.ts';

/**
 * `/keep?mb=N` keeps N MiB more (outside the heap, touched so it is resident); `/kept` says how much; `/think`
 * waits; `/grow` keeps 8 MiB more every 50 ms, for ever (a tenant growing past the recycle point on purpose).
 */
const KEEPER = `const kept = [];
export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === '/keep') for (let i = 0; i < Number(url.searchParams.get('mb')); i++) kept.push(new Uint8Array(1024 * 1024).fill(1));
    if (url.pathname === '/think') await scheduler.wait(Number(url.searchParams.get('ms')));
    if (url.pathname === '/grow') for (;;) { kept.push(new Uint8Array(8 * 1024 * 1024).fill(1)); await scheduler.wait(50); }
    return new Response(String(kept.length));
  },
};
`;

const RECYCLE_MB = 320;

describe('RuntimeEngine recycling a shard past its memory recycle point', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-recycle-'));
  const engine = new RuntimeEngine({
    artifacts: new MemoryArtifactSource().put('keeper', artifactFromFiles({ 'worker.js': KEEPER })),
    dataDir,
    baseDomain: 'apps.test',
    publicScheme: 'http',
    shards: 1,
    limits: { cpuLimitMs: 500, shardMemoryMb: 2 * RECYCLE_MB, shardRecycleMb: RECYCLE_MB, recycleMinAgeMs: 1000 },
  });
  let port = 0;

  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
    await engine.deploy({ project: 'alpha', appId: 'keeper', buildId: 'keeper', env: {}, hostnames: [] });
    await engine.deploy({ project: 'bravo', appId: 'slow', buildId: 'keeper', env: {}, hostnames: [] });
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts a fresh workerd, finishes the requests of the old one, and blames nobody', async () => {
    const before = engine.status().shards[0]!;
    expect(residentBytes(before.pid, (path) => readFileSync(path, 'utf8'))!).toBeLessThan(RECYCLE_MB * 1048576);
    // Another project's request in flight across the recycle: the old workerd finishes it.
    const inFlight = send(port, 'slow.bravo.apps.test', '/think?ms=3000');
    expect(await send(port, 'keeper.alpha.apps.test', `/keep?mb=${RECYCLE_MB}`)).toMatchObject({ status: 200, body: String(RECYCLE_MB) });

    await expect.poll(() => engine.status().shards[0]!.pid, { timeout: 20_000 }).not.toBe(before.pid);
    const after = engine.status().shards[0]!;
    expect(after.recycles).toEqual({ isolates: 0, memory: 1 });
    expect(after.restarts).toBe(0);
    expect(await inFlight).toMatchObject({ status: 200 });
    expect(engine.limits.counts().stops.size).toBe(0);
    expect(engine.limits.quarantine('alpha/keeper')).toBeUndefined();
    // The app loads again in the fresh workerd, without what the old one kept; the memory went with it.
    expect(await send(port, 'keeper.alpha.apps.test', '/kept')).toMatchObject({ status: 200, body: '0' });
    expect(residentBytes(after.pid, (path) => readFileSync(path, 'utf8'))!).toBeLessThan(RECYCLE_MB * 1048576);
  });

  it('bounds a retiring workerd as the serving one: an app growing on past the recycle point is ended there and quarantined', async () => {
    await engine.deploy({ project: 'alpha', appId: 'grower', buildId: 'keeper', env: {}, hostnames: [] });
    const before = engine.status().shards[0]!;
    const grown = await send(port, 'grower.alpha.apps.test', '/grow');
    // Recycled at the recycle point; the old workerd, retiring with the request in flight, ended at the bound.
    expect(grown.status).toBe(503);
    expect(engine.limits.quarantine('alpha/grower')).toMatchObject({ reason: 'MemoryLimitExceeded' });
    expect(engine.limits.counts().stops.get('memory')).toBe(1);
    const after = engine.status().shards[0]!;
    expect(after.pid).not.toBe(before.pid);
    expect(after.recycles.memory).toBe(before.recycles.memory + 1);
    expect(after.restarts).toBe(0);
    expect(await send(port, 'slow.bravo.apps.test', '/kept')).toMatchObject({ status: 200 });
  });
});

describe('RuntimeEngine when a fresh workerd cannot start', { timeout: 60_000 }, () => {
  it('backs off between attempts, the workerd serving carrying on meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-rt-recycle-fail-'));
    // A workerd that exits at once while the flag file exists, as one that cannot get the memory it needs.
    const flag = join(dir, 'refuse');
    const wrapper = join(dir, 'workerd');
    writeFileSync(wrapper, `#!/bin/sh\nif [ -e '${flag}' ] && [ "$1" = serve ]; then exit 1; fi\nexec '${resolveWorkerdBinary()}' "$@"\n`, { mode: 0o755 });
    const engine = new RuntimeEngine({
      artifacts: new MemoryArtifactSource().put('keeper', artifactFromFiles({ 'worker.js': KEEPER })),
      dataDir: join(dir, 'data'),
      baseDomain: 'apps.test',
      workerdBinary: wrapper,
      shards: 1,
      startTimeoutMs: 5000,
      // Past its recycle point from the start: a fresh workerd is due at every health check 5 s after it started,
      // time enough to start and deploy before the flag makes every later start fail.
      limits: { shardMemoryMb: 4096, shardRecycleMb: 1, recycleMinAgeMs: 5000 },
    });
    await engine.start();
    try {
      await engine.deploy({ project: 'alpha', appId: 'keeper', buildId: 'keeper', env: {}, hostnames: [] });
      const host = 'keeper.alpha.apps.test';
      writeFileSync(flag, '');
      const serving = engine.status().shards[0]!;
      expect(serving.recycles.memory).toBe(0);
      const startsBefore = engine.status().workerdStarts;
      const attempts: number[] = [];
      await expect
        .poll(
          () => {
            const starts = engine.status().workerdStarts - startsBefore;
            if (starts > attempts.length) attempts.push(performance.now());
            return starts;
          },
          { timeout: 15_000, interval: 20 },
        )
        .toBeGreaterThanOrEqual(3);
      // A health check every 100 ms would try at each; the attempts wait 1 s, then 2 s.
      expect(attempts[2]! - attempts[1]!).toBeGreaterThan(900);
      const now = engine.status().shards[0]!;
      expect(now.pid).toBe(serving.pid);
      expect(now.recycles.memory).toBe(serving.recycles.memory);
      expect(now.restarts).toBe(0);
      expect(await send(engine.address.port, host)).toMatchObject({ status: 200 });
    } finally {
      await engine.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
