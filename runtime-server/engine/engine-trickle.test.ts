// The CPU bound against the real workerd while a tenant trickles out answers its clients held back: the bytes workerd
// wrote before its thread got stuck, let through the entry point a chunk at a time, are no sign of life, so a loop
// that never yields is still ended at the bound (review-183 F1: it ran 31 s past a 300 ms bound that way).
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';
import { latencySummary } from './testing/probe-latency.ts';

const CALM = `export default { fetch() { return new Response('calm'); } };`;
/** `/loop` never yields; `/endless` is a body without end, written as fast as it is taken (so workerd holds little). */
const HOSTILE = `const chunk = new Uint8Array(65536).fill(97);
export default {
  fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === '/loop') for (;;) {}
    if (url.pathname === '/endless') return new Response(new ReadableStream({ pull(c) { c.enqueue(chunk); } }));
    return new Response('ok');
  },
};`;
const artifacts = new MemoryArtifactSource().put('calm', artifactFromFiles({ 'worker.js': CALM })).put('hostile', artifactFromFiles({ 'worker.js': HOSTILE }));

const CPU_LIMIT_MS = 300;
/** Answers held back, and how often one chunk of one of them is let through: untouched, the stall lasted about their product (15 s). */
const STREAMS = 100;
const EVERY_MS = 150;

describe('RuntimeEngine bounding CPU while held-back answers trickle out', { timeout: 90_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-trickle-'));
  // One shard, the sustained bound off (its window would end the loop too, later): only the CPU bound is tried.
  const engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'apps.test', publicScheme: 'http', shards: 1, limits: { cpuLimitMs: CPU_LIMIT_MS, sustainedWindowMs: 0 } });
  let port = 0;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
    await engine.deploy({ project: 'victimp', appId: 'victim', buildId: 'calm', env: {}, hostnames: [] });
    await engine.deploy({ project: 'attackp', appId: 'hog', buildId: 'hostile', env: {}, hostnames: [] });
  }, 60_000);
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Asks for `/endless` and reads nothing after its first bytes: every buffer from workerd to here fills. */
  const holdBack = () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /endless HTTP/1.1\r\nHost: hog.attackp.apps.test\r\n\r\n'));
      socket.once('data', () => {
        socket.pause();
        resolve(socket);
      });
      socket.on('error', reject);
    });

  it('ends a loop that never yields at the bound while the tenant trickles out bytes written before it', async () => {
    expect((await send(port, 'victim.victimp.apps.test')).status).toBe(200);
    expect((await send(port, 'hog.attackp.apps.test')).status).toBe(200);
    for (let i = 0; i < STREAMS; i++) sockets.push(await holdBack());
    await new Promise((resolve) => setTimeout(resolve, 1000)); // every buffer full
    let next = 0;
    const trickle = setInterval(() => {
      const socket = sockets[next++ % sockets.length]!;
      socket.resume();
      setTimeout(() => socket.pause(), 2);
    }, EVERY_MS);
    try {
      const started = performance.now();
      let looping = true;
      const loop = send(port, 'hog.attackp.apps.test', '/loop', { timeoutMs: 60_000 }).finally(() => (looping = false));
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The victim, another project on the shard, one request after another while the loop holds the thread.
      const waited: number[] = [];
      while (looping) {
        const t0 = performance.now();
        expect((await send(port, 'victim.victimp.apps.test', '/', { timeoutMs: 60_000 })).status).toBe(200);
        waited.push(performance.now() - t0);
      }
      const answer = await loop;
      const stalledMs = performance.now() - started;
      console.log(`trickling ${STREAMS} held-back answers: the loop ended after ${Math.round(stalledMs)} ms; the victim meanwhile: ${latencySummary(waited)}`);
      // Its shard was ended under it (the request is dropped, answered 503), and the app held to it.
      expect(answer.status).toBe(503);
      expect(engine.limits.quarantine('attackp/hog')).toMatchObject({ reason: 'CPULimitExceeded' });
      // The bound on this VM's busy cores (docs/runtime.md, "The watchdog": ten times the bound at most, for a thread
      // given a sliver of a core), the shard's restart and the victim's request sent again. Untouched, it was 15 s.
      expect(Math.max(...waited)).toBeLessThan(10 * CPU_LIMIT_MS + 4000);
      expect(stalledMs).toBeLessThan(10 * CPU_LIMIT_MS + 4000);
    } finally {
      clearInterval(trickle);
    }
  });
});
