// The client's nonce handling against a small ACME server that holds its answers, so two exchanges overlap at
// the moment chosen; Pebble (client.int.test.ts) covers the protocol itself.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AcmeClient } from './client.ts';
import { generateAccountKey } from './jws.ts';

/** Answers the directory and newNonce, and every POST once `release` is called, refusing a nonce seen before. */
async function heldServer() {
  let issued = 0;
  const seen: string[] = [];
  const held: Array<() => void> = [];
  const posts = new EventTarget();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const fresh = () => `n${++issued}`;
    if (req.url === '/directory')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ newNonce: `${base}/nonce`, newAccount: `${base}/acct`, newOrder: `${base}/order`, revokeCert: `${base}/revoke` }));
    if (req.url === '/nonce') return void res.writeHead(200, { 'replay-nonce': fresh() }).end();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { protected: header } = JSON.parse(Buffer.concat(chunks).toString()) as { protected: string };
      const { nonce } = JSON.parse(Buffer.from(header, 'base64url').toString()) as { nonce: string };
      const reused = seen.includes(nonce);
      seen.push(nonce);
      held.push(() => {
        if (reused)
          res
            .writeHead(400, { 'content-type': 'application/problem+json', 'replay-nonce': fresh() })
            .end(JSON.stringify({ type: 'urn:ietf:params:acme:error:badNonce', detail: `nonce ${nonce} used before` }));
        else
          res
            .writeHead(200, { 'content-type': 'application/json', 'replay-nonce': fresh() })
            .end(JSON.stringify({ status: 'pending', identifiers: [], authorizations: [], finalize: `${base}/finalize` }));
      });
      posts.dispatchEvent(new Event('post'));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    directoryUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/directory`,
    orderUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/order/1`,
    seen,
    /** Resolves once `count` POSTs have arrived. */
    async posted(count: number): Promise<void> {
      while (seen.length < count) await once(posts, 'post');
    },
    release(): void {
      for (const answer of held.splice(0)) answer();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

describe('the ACME client’s nonces', () => {
  it('spends a nonce from newNonce once: a second request made while the first is answered asks for its own', async () => {
    const server = await heldServer();
    const client = new AcmeClient({ directoryUrl: server.directoryUrl, accountKey: generateAccountKey(), accountUrl: 'http://127.0.0.1/acct/1' });
    close = async () => {
      await client.close();
      await server.close();
    };
    const first = client.order(server.orderUrl);
    await server.posted(1);
    const second = client.order(server.orderUrl);
    await server.posted(2);
    server.release();
    await Promise.all([first, second]);
    expect(new Set(server.seen).size, `nonces sent: ${server.seen.join(', ')}`).toBe(server.seen.length);
  });
});
