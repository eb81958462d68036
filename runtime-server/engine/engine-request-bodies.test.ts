// One client trickling request bodies to an app, on the real workerd (review-183 F7): 100 POSTs from one address,
// each sending a byte every few seconds, held all 100 of the app's slots (a slot is held while the app reads its
// body) for Node's 300 s request timeout, and every other visitor waited the queue's 10 s and was answered 503. Now
// one client has at most half of an app's slots' worth of bodies arriving (the rest are answered 503 at once), and a
// body has a bounded time to arrive (here 4 s; 60 s by default), past which its request is cut with 408.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';

const FORM = `export default { async fetch(request) {
  if (request.method === 'POST') return new Response('got ' + (await request.text()).length);
  return new Response('page');
} };`;
const artifacts = new MemoryArtifactSource().put('form', artifactFromFiles({ 'worker.js': FORM }));
const HOST = 'shop.victimp.apps.test';
const SLOTS = 10;
const BODY_TIMEOUT_MS = 4000;

/** A POST that promises a large body and sends one byte of it: the raw answer it gets, and when its connection ends. */
interface Trickle {
  readonly socket: Socket;
  readonly opened: number;
  answer: string;
  closedAt?: number;
}

function trickle(port: number): Trickle {
  const socket = connect(port, '127.0.0.1', () => socket.write(`POST / HTTP/1.1\r\nHost: ${HOST}\r\nContent-Length: 1000000\r\n\r\nx`));
  const t: Trickle = { socket, opened: Date.now(), answer: '' };
  socket.on('data', (chunk: Buffer) => (t.answer += chunk.toString('latin1')));
  socket.on('error', () => {});
  socket.on('close', () => (t.closedAt = Date.now()));
  return t;
}

describe('request bodies trickled by one client', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-bodies-'));
  const engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'apps.test', publicScheme: 'http', shards: 1, requestBodyTimeoutMs: BODY_TIMEOUT_MS, trustForwardedHeaders: true });
  let port = 0;
  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
    await engine.deploy({ project: 'victimp', appId: 'shop', buildId: 'form', env: {}, hostnames: [], maxConcurrentRequests: SLOTS });
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("hold at most half the app's slots, so other visitors are served; past the bound each is cut with 408", async () => {
    const trickles = Array.from({ length: SLOTS }, () => trickle(port));
    const drip = setInterval(() => {
      for (const t of trickles) if (!t.socket.destroyed) t.socket.write('x');
    }, 1000);
    try {
      await new Promise((resolve) => setTimeout(resolve, 700));
      // Half of them were refused at once (503, the connection closed: their bodies are not read), half go on.
      const refused = trickles.filter((t) => t.answer.startsWith('HTTP/1.1 503'));
      expect(refused.length, trickles.map((t) => t.answer.split('\r\n')[0] || '(no answer)').join(', ')).toBe(SLOTS / 2);
      expect(refused[0]?.answer).toContain('TooManyBodies');
      expect(refused[0]?.answer.toLowerCase()).toContain('retry-after: 1');
      // A visitor is served at once from the slots left (without the bound: the queue's 10 s, then 503).
      const visitorAt = Date.now();
      const page = await send(port, HOST, '/', { timeoutMs: 15_000 });
      expect([page.status, page.body]).toEqual([200, 'page']);
      expect(Date.now() - visitorAt).toBeLessThan(2000);
      // So is a whole body sent at once, from another client (one behind the same address shares its half).
      const post = await send(port, HOST, '/', { method: 'POST', body: 'hello', headers: { 'x-forwarded-for': '192.0.2.7' }, timeoutMs: 15_000 });
      expect(post.status).toBe(200);

      // The bodies still arriving are cut at the bound: 408, their connections closed (Node alone: 300 s).
      const admitted = trickles.filter((t) => !refused.includes(t));
      const deadline = Date.now() + BODY_TIMEOUT_MS + 5000;
      while (admitted.some((t) => t.closedAt === undefined) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      for (const t of admitted) {
        expect(t.answer.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
        expect(t.closedAt, 'its connection closed').toBeDefined();
        expect((t.closedAt ?? Infinity) - t.opened).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 100);
        expect((t.closedAt ?? Infinity) - t.opened).toBeLessThan(BODY_TIMEOUT_MS + 3000);
      }
      // Their slots are given back: the same client may send its bodies again.
      const again = await send(port, HOST, '/', { method: 'POST', body: 'again', timeoutMs: 15_000 });
      expect([again.status, again.body]).toEqual([200, 'got 5']);
    } finally {
      clearInterval(drip);
      for (const t of trickles) t.socket.destroy();
    }
  });
});
