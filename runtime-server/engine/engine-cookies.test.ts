// An app's cookies against the real workerd, through the entry point: one naming the base domain every tenant's
// default host is under (or a name above it, or another tenant's host) is passed on host-only, so it is never sent to
// another tenant's app (review-183 F3); the app's own host and its project's domain stay hers to name.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';

const COOKIES = `export default { async fetch(request) {
  if (request.headers.get('upgrade') === 'websocket') {
    const [client, server] = Object.values(new WebSocketPair());
    server.accept();
    const h = new Headers();
    h.append('set-cookie', 'session=planted; Domain=apps.test; Path=/');
    h.append('set-cookie', 'project=1; Domain=attackp.apps.test');
    return new Response(null, { status: 101, webSocket: client, headers: h });
  }
  const h = new Headers({ 'content-type': 'text/plain' });
  h.append('set-cookie', 'session=planted; Domain=apps.test; Path=/; Secure; SameSite=None');
  h.append('set-cookie', 'dotted=1; path=/; domain=.APPS.TEST.');
  h.append('set-cookie', 'above=1; Domain=test');
  h.append('set-cookie', 'other=1; Domain=victim.victimp.apps.test');
  h.append('set-cookie', 'twice=1; Domain=attackp.apps.test; Domain=apps.test');
  h.append('set-cookie', 'project=1; Domain=attackp.apps.test; HttpOnly');
  h.append('set-cookie', 'own=1; Domain=toss.attackp.apps.test');
  h.append('set-cookie', 'plain=1; Path=/');
  h.append('set-cookie', 'shop=1; Domain=example.com');
  return new Response('tossed', { headers: h });
} };`;
const artifacts = new MemoryArtifactSource().put('cookies', artifactFromFiles({ 'worker.js': COOKIES }));

describe('RuntimeEngine passing on apps’ cookies', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-cookies-'));
  const engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'apps.test', publicScheme: 'http', shards: 1 });
  let port = 0;
  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
    await engine.deploy({ project: 'attackp', appId: 'toss', buildId: 'cookies', env: {}, hostnames: [] });
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('makes a cookie for the base domain, a name above it or another host host-only, and keeps the app’s own domains', async () => {
    const answer = await send(port, 'toss.attackp.apps.test');
    expect(answer.status).toBe(200);
    expect(([] as string[]).concat(answer.headers['set-cookie'] ?? [])).toEqual([
      'session=planted; Path=/; Secure; SameSite=None',
      'dotted=1; path=/',
      'above=1',
      'other=1',
      'twice=1',
      'project=1; Domain=attackp.apps.test; HttpOnly',
      'own=1; Domain=toss.attackp.apps.test',
      'plain=1; Path=/',
      'shop=1',
    ]);
  });

  it('does the same on the answer to a WebSocket handshake', async () => {
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write('GET / HTTP/1.1\r\nHost: toss.attackp.apps.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n'),
      );
      let got = '';
      socket.on('data', (chunk: Buffer) => {
        got += chunk.toString('latin1');
        if (!got.includes('\r\n\r\n')) return;
        socket.destroy();
        resolve(got.slice(0, got.indexOf('\r\n\r\n')));
      });
      socket.on('error', reject);
    });
    expect(head).toMatch(/^HTTP\/1\.1 101/);
    const cookies = head
      .split('\r\n')
      .filter((line) => /^set-cookie:/i.test(line))
      .map((line) => line.slice(line.indexOf(':') + 1).trim());
    expect(cookies).toEqual(['session=planted; Path=/', 'project=1; Domain=attackp.apps.test']);
  });
});
