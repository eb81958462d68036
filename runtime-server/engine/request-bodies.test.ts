// RequestBodies on its own, in front of a handler that never reads (an app waiting on its body): one client's share
// of an app's slots and the time a body has, over HTTP/2 (the HTTPS listener's) as over HTTP/1.1
// (engine-request-bodies.test.ts has the HTTP/1.1 case on the real workerd).
import { connect as h2connect, createServer as h2server, type ClientHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestBodies } from './request-bodies.ts';

const close: (() => void)[] = [];
afterEach(() => {
  for (const c of close.splice(0)) c();
});

/** An h2c server where `bodies` answers first and every other request waits for its body, then answers 200. */
async function server(bodies: RequestBodies): Promise<ClientHttp2Session> {
  const s = h2server((req, res) => {
    const r = req as unknown as IncomingMessage;
    const w = res as unknown as ServerResponse;
    if (bodies.answer(r, w)) return;
    req.resume();
    req.on('end', () => res.end('read'));
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const client = h2connect(`http://127.0.0.1:${(s.address() as AddressInfo).port}`);
  client.on('error', () => {});
  close.push(() => {
    client.destroy();
    s.close();
  });
  return client;
}

/** A POST on `client` that sends one byte of its body and no more: its status (or the stream's error code). */
function trickle(client: ClientHttp2Session, host = 'shop.test'): { status: Promise<number | string> } {
  const stream = client.request({ ':method': 'POST', ':path': '/', ':authority': host });
  stream.write('x');
  return {
    status: new Promise((resolve) => {
      stream.on('response', (headers) => resolve(Number(headers[':status'])));
      stream.on('close', () => resolve(`closed ${stream.rstCode}`));
      stream.on('error', () => {});
    }),
  };
}

describe('request bodies arriving (HTTP/2)', () => {
  it("refuses a client's bodies past half its app's slots at once, and counts none without a body or an app", async () => {
    const bodies = new RequestBodies({ timeoutMs: 0, appOf: (host) => (host === 'shop.test' ? { key: 'p/shop', slots: 4 } : undefined), retryAfter: '1' });
    const client = await server(bodies);
    trickle(client);
    trickle(client);
    trickle(client, 'unknown.test');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bodies.arriving).toBe(2);
    expect(await trickle(client).status).toBe(503);
    const get = client.request({ ':method': 'GET', ':path': '/', ':authority': 'shop.test' });
    get.end();
    expect(await new Promise((resolve) => get.on('response', (h) => resolve(h[':status'])))).toBe(200);
    expect(bodies.arriving).toBe(2);
  });

  it('cancels the stream of a body that did not arrive in time, and counts it no more', async () => {
    const bodies = new RequestBodies({ timeoutMs: 300, appOf: () => ({ key: 'p/shop', slots: 4 }), retryAfter: '1' });
    const client = await server(bodies);
    const started = Date.now();
    const slow = trickle(client);
    expect(await slow.status).toBe('closed 8'); // NGHTTP2_CANCEL
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(bodies.arriving).toBe(0);
    // A body sent whole is read and answered, and counts no more once it has arrived.
    const whole = client.request({ ':method': 'POST', ':path': '/', ':authority': 'shop.test' });
    whole.end('all of it');
    expect(await new Promise((resolve) => whole.on('response', (h) => resolve(h[':status'])))).toBe(200);
    expect(bodies.arriving).toBe(0);
  });
});
