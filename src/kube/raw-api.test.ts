import { createServer, type Server } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCa } from '../../runtime-server/tls/testing/test-ca.ts';
import { connectionFor } from './kube-config.ts';

// An HTTPS server standing in for the apiserver: what matters here is how many TLS connections the client opens.
let server: Server;
let ca: TestCa;
let handshakes = 0;

beforeAll(async () => {
  ca = await TestCa.create();
  const leaf = await ca.issue(['apiserver.test']);
  server = createServer({ cert: leaf.chainPem, key: leaf.privateKeyPem }, (req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url, auth: req.headers.authorization })),
  );
  server.on('secureConnection', () => handshakes++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(() => {
  server?.closeAllConnections();
  server?.close();
});

describe('RawApi', () => {
  it('sends every request over the connections it pooled, not a TLS handshake each, with the bearer token on each', async () => {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'c', server: `https://127.0.0.1:${(server.address() as { port: number }).port}`, caData: Buffer.from(ca.certPem).toString('base64'), tlsServerName: 'apiserver.test' }],
      users: [{ name: 'u', token: 'token-1' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const { api } = connectionFor(config);
    handshakes = 0;
    for (let i = 0; i < 50; i++) expect(await api.request('GET', `/api/${i}`)).toEqual({ path: `/api/${i}`, auth: 'Bearer token-1' });
    // client-node alone gave each request an Agent of its own: 50 handshakes here.
    expect(handshakes).toBeLessThanOrEqual(2);
  });
});
