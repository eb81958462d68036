// One followed app's console output on a shard must not cost its co-tenants their log entries: the tail worker cuts
// each entry before it is queued, holds an app to its share of a batch (dropped past it, counted, told to the app's
// followers), and keeps every batch well under the runtime's bound on one, past which a batch is dropped whole
// (found in review-183: 59 % of a co-tenant's entries lost, nobody told).
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';

const CALM = `export default { async fetch(request) { console.log('calm', new URL(request.url).pathname); return new Response('calm'); } };`;
/**
 * 100 lines of 8,192 characters a request: of `y` (800 KB of JSON uncut; the review's flood, whose batches passed the
 * runtime's bound), or of a control character (`?escaped`: each escaped in JSON, six bytes a character, so that even
 * cut each entry is about 200 KB, and a few fill the app's share of a batch).
 */
const LOUD = `const plain = 'y'.repeat(8192);
const escaped = '\\u0001'.repeat(8192);
export default { async fetch(request) {
  const line = new URL(request.url).searchParams.has('escaped') ? escaped : plain;
  for (let i = 0; i < 100; i++) console.log(line);
  return new Response('loud');
} };`;
const artifacts = new MemoryArtifactSource().put('calm', artifactFromFiles({ 'worker.js': CALM })).put('loud', artifactFromFiles({ 'worker.js': LOUD }));

describe('app logs of a shard with one app flooding its console', { timeout: 90_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-logflood-'));
  const engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'apps.test', publicScheme: 'http', shards: 1 });
  let port = 0;
  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
    await engine.deploy({ project: 'calmp', appId: 'calm', buildId: 'calm', env: {}, hostnames: [] });
    await engine.deploy({ project: 'loudp', appId: 'loud', buildId: 'loud', env: {}, hostnames: [] });
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps every entry of the co-tenant, and tells the flooding app's follower what was dropped (found in review-183)", async () => {
    const seen = new Set<string>();
    let loudEntries = 0;
    let loudLongest = 0;
    let loudDropped = 0;
    const leaves = [
      await engine.followLogs('calmp/calm', (entry) => seen.add(new URL(entry.request?.url ?? 'http://x/').pathname)),
      await engine.followLogs(
        'loudp/loud',
        (entry) => {
          loudEntries += 1;
          loudLongest = Math.max(loudLongest, ...entry.logs.map((l) => l.message.length));
        },
        (count) => (loudDropped += count),
      ),
    ];
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const loud = (path: string) =>
      new Promise<void>((resolve) => {
        const req = request({ host: '127.0.0.1', port, path, headers: { host: 'loud.loudp.apps.test' }, agent }, (res) => res.resume().on('end', resolve));
        req.on('error', () => resolve());
        req.end();
      });
    /** Eight request loops of the flooding app at `path` while `during` runs. */
    const flood = async <T>(path: string, during: () => Promise<T>): Promise<T> => {
      let flooding = true;
      const loops = Array.from({ length: 8 }, async () => {
        while (flooding) await loud(path);
      });
      try {
        return await during();
      } finally {
        flooding = false;
        await Promise.all(loops);
      }
    };
    // The review's flood, while the co-tenant is asked one request after another: each of its entries arrives.
    const answered = await flood('/', async () => {
      const out: string[] = [];
      const until = Date.now() + 8000;
      for (let i = 0; Date.now() < until; i++) {
        const path = `/probe-${i}`;
        if ((await send(port, 'calm.calmp.apps.test', path)).status === 200) out.push(path);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return out;
    });
    expect(answered.length).toBeGreaterThan(5);
    await expect.poll(() => answered.filter((path) => !seen.has(path)), { timeout: 10_000, interval: 100 }).toEqual([]);
    // The flooding app's entries came cut (a line at most 8,192 characters).
    expect(loudEntries).toBeGreaterThan(0);
    expect(loudLongest).toBeLessThanOrEqual(8192);
    // Entries of about 200 KB each, eight at once: past the app's share of a batch, dropped, and its follower told.
    await flood('/?escaped', () => new Promise((resolve) => setTimeout(resolve, 3000)));
    await expect.poll(() => loudDropped, { timeout: 5000 }).toBeGreaterThan(0);
    agent.destroy();
    for (const leave of leaves) leave();
  });
});
