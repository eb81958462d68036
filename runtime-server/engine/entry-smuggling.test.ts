// Request smuggling and desynchronisation probes against the runtime's entry point, with raw bytes on a TCP
// connection as an attacker sends them, and a real workerd behind it. Whatever parses HTTP at the entry point,
// an ambiguous message must be refused (400, connection closed) and never reach an app, and pipelined
// requests must each be routed and answered on their own.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';

/** An app that answers what it received: its name, the method, the path and the body. */
const ECHO = `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const body = await request.text();
    console.log('received', request.method, url.pathname, body.length);
    return Response.json({ app: env.NAME, method: request.method, path: url.pathname, body });
  },
};`;

const artifacts = new MemoryArtifactSource().put('echo', artifactFromFiles({ 'worker.js': ECHO }));
const dataDir = mkdtempSync(join(tmpdir(), 'cw-smuggle-'));
const engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'apps.test', publicScheme: 'http' });
let port = 0;

/** Writes `raw` on a new connection and resolves with everything read until the server closes it (or 3 s pass). */
function exchange(raw: string): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, 3000);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.write(raw);
  });
}

/** The status codes of the responses in `text`, in order. */
const statuses = (text: string): number[] => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

/**
 * Paths the apps were asked for, from their logs, once a marker request sent after the probes has been logged:
 * the tail worker's entries arrive in order, so anything the probes had smuggled through would be there too.
 */
async function pathsSeen(marker: string): Promise<string[]> {
  await send(port, 'a.demo.apps.test', marker);
  await expect.poll(() => engine.logs.recent('demo/a').some((e) => e.request?.url.endsWith(marker)), { timeout: 5000, interval: 20 }).toBe(true);
  return [...engine.logs.recent('demo/a'), ...engine.logs.recent('demo/b')].map((e) => new URL(e.request?.url ?? 'http://x/').pathname);
}

beforeAll(async () => {
  await engine.start();
  port = engine.address.port;
  await engine.deploy({ project: 'demo', appId: 'a', buildId: 'echo', env: { NAME: 'a' }, hostnames: [] });
  await engine.deploy({ project: 'demo', appId: 'b', buildId: 'echo', env: { NAME: 'b' }, hostnames: [] });
  // Followed, so the apps' logs record every request that reaches them.
  await engine.followLogs('demo/a', () => {});
  await engine.followLogs('demo/b', () => {});
}, 60_000);
afterAll(async () => {
  await engine.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the entry point refuses ambiguous requests', { timeout: 30_000 }, () => {
  const host = 'Host: a.demo.apps.test\r\n';
  // Each probe hides a request for /smuggled behind framing that two parsers could read differently.
  const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: b.demo.apps.test\r\n\r\n';
  it.each([
    ['Content-Length and Transfer-Encoding together', `POST /cl-te HTTP/1.1\r\n${host}Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`],
    ['Transfer-Encoding then Content-Length', `POST /te-cl HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n8\r\nSMUGGLED\r\n0\r\n\r\n`],
    ['two different Content-Length headers', `POST /cl-cl HTTP/1.1\r\n${host}Content-Length: 0\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`],
    ['a Content-Length that is not a number', `POST /cl-junk HTTP/1.1\r\n${host}Content-Length: 1e3\r\n\r\n${smuggled}`],
    ['Transfer-Encoding not ending in chunked', `POST /te-identity HTTP/1.1\r\n${host}Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n${smuggled}`],
    ['an obfuscated Transfer-Encoding', `POST /te-x HTTP/1.1\r\n${host}Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n${smuggled}`],
    ['a header folded onto the next line (obs-fold)', `POST /fold HTTP/1.1\r\n${host}Transfer-Encoding: identity\r\n chunked\r\nContent-Length: 0\r\n\r\n${smuggled}`],
    ['bare LF line endings', `GET /bare-lf HTTP/1.1\n${host.replace('\r\n', '\n')}\n${smuggled}`],
    ['whitespace before the colon of a header', `POST /space HTTP/1.1\r\n${host}Transfer-Encoding : chunked\r\nContent-Length: 0\r\n\r\n${smuggled}`],
  ])('%s: 400, connection closed, nothing reaches an app', async (_name, raw) => {
    const answer = await exchange(raw);
    expect(statuses(answer.text)[0], answer.text).toBe(400);
    expect(answer.text).not.toContain('"app"');
    expect(answer.closed).toBe(true);
    const path = /^[A-Z]+ (\S+)/.exec(raw)?.[1] ?? '';
    const seen = await pathsSeen(`/after${path}`);
    expect(seen).not.toContain('/smuggled');
    expect(seen).not.toContain(path);
  });
});

describe('the entry point refuses a broken body', { timeout: 30_000 }, () => {
  it('an invalid chunk size: 400 and the connection closed; what follows it is never read as a request', async () => {
    // The head of a streamed request reaches the app before its body is read (as behind any streaming
    // proxy); the broken body then ends it, and nothing after it is taken for a request.
    const raw = `POST /chunk HTTP/1.1\r\nHost: a.demo.apps.test\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nGET /smuggled HTTP/1.1\r\nHost: b.demo.apps.test\r\n\r\n\r\n0\r\n\r\n`;
    const answer = await exchange(raw);
    expect(statuses(answer.text)).not.toContain(200);
    expect(answer.closed).toBe(true);
    expect(await pathsSeen('/after/chunk')).not.toContain('/smuggled');
  });
});

describe('the entry point answers pipelined requests one by one', { timeout: 30_000 }, () => {
  it('routes each pipelined request by its own Host and answers them in order, bodies kept apart', async () => {
    const raw =
      'POST /first HTTP/1.1\r\nHost: a.demo.apps.test\r\nContent-Length: 5\r\n\r\nhello' +
      'GET /second HTTP/1.1\r\nHost: b.demo.apps.test\r\n\r\n' +
      'POST /third HTTP/1.1\r\nHost: a.demo.apps.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n';
    const answer = await exchange(raw);
    expect(statuses(answer.text), answer.text).toEqual([200, 200, 200]);
    const bodies = [...answer.text.matchAll(/\{"app".*?\}/g)].map((m) => JSON.parse(m[0]) as Record<string, string>);
    expect(bodies).toEqual([
      { app: 'a', method: 'POST', path: '/first', body: 'hello' },
      { app: 'b', method: 'GET', path: '/second', body: '' },
      { app: 'a', method: 'POST', path: '/third', body: 'abc' },
    ]);
    expect(answer.closed).toBe(true);
  });
});
