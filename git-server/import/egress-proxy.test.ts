// The egress proxy against real sockets: an echo server on loopback stands in for the source (the policy allows
// private targets here so it can be reached); the resolver is the port tests stand in for DNS with.
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetPolicy, TargetRefusedError } from '../../src/target-policy.ts';
import { EgressProxy } from './egress-proxy.ts';

let echo: net.Server;
let port = 0;
beforeAll(async () => {
  echo = net.createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  port = (echo.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

/** CONNECT through `proxy` to `target`; answers the status and, when tunnelled, what `payload` echoes back. */
function tunnel(proxy: EgressProxy, target: string, payload: Buffer): Promise<{ status: number; echoed: Buffer }> {
  const { port: proxyPort } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port: Number(proxyPort), method: 'CONNECT', path: target });
    request.once('connect', (response, socket) => {
      const status = response.statusCode ?? 0;
      if (status !== 200) {
        socket.destroy();
        return resolve({ status, echoed: Buffer.alloc(0) });
      }
      const chunks: Buffer[] = [];
      let received = 0;
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        if (received >= payload.length) socket.end();
      });
      // Ends when all came back, or when the proxy cut the tunnel.
      socket.once('close', () => resolve({ status, echoed: Buffer.concat(chunks) }));
      socket.on('error', () => {});
      socket.write(payload);
    });
    request.once('error', reject);
    request.end();
  });
}

const allowPrivate = new TargetPolicy({ allowPrivate: true });

describe('EgressProxy', () => {
  it('resolves once and connects every tunnel to the checked address: a second DNS answer is never asked for', async () => {
    const answers: LookupAddress[][] = [[{ address: '127.0.0.1', family: 4 }], [{ address: '169.254.169.254', family: 4 }]];
    let lookups = 0;
    const proxy = await EgressProxy.start({ host: 'git.example.test', port, policy: allowPrivate, maxBytes: 1 << 20, resolve: async () => answers[lookups++] ?? [] });
    try {
      for (let i = 0; i < 2; i++) expect(await tunnel(proxy, `git.example.test:${port}`, Buffer.from('ping'))).toEqual({ status: 200, echoed: Buffer.from('ping') });
      expect(lookups).toBe(1);
      expect(proxy.failure).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('refuses a tunnel to any other host or port (a redirect elsewhere), and records why', async () => {
    const proxy = await EgressProxy.start({ host: '127.0.0.1', port, policy: allowPrivate, maxBytes: 1 << 20 });
    try {
      expect((await tunnel(proxy, `127.0.0.1:${port + 1}`, Buffer.from('x'))).status).toBe(403);
      expect((await tunnel(proxy, `metadata.internal:${port}`, Buffer.from('x'))).status).toBe(403);
      expect(proxy.failure).toEqual({ kind: 'other_host', target: `127.0.0.1:${port + 1}` });
    } finally {
      await proxy.close();
    }
  });

  it('cuts every connection once the source has sent more than the bound', async () => {
    const proxy = await EgressProxy.start({ host: '127.0.0.1', port, policy: allowPrivate, maxBytes: 1000 });
    try {
      const { status, echoed } = await tunnel(proxy, `127.0.0.1:${port}`, Buffer.alloc(64 * 1024, 1));
      expect(status).toBe(200);
      expect(echoed.length).toBeLessThan(64 * 1024);
      expect(proxy.failure).toMatchObject({ kind: 'too_large' });
    } finally {
      await proxy.close();
    }
  });

  it('refuses before listening when any address of the host is internal, under the default policy', async () => {
    const policy = new TargetPolicy({ settings: { allowHint: 'set api.import_allow_private_targets: true', denied: 'x' } });
    const start = EgressProxy.start({
      host: 'mixed.example.test',
      port: 443,
      policy,
      maxBytes: 1,
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
    });
    await expect(start).rejects.toThrow(TargetRefusedError);
    await expect(start).rejects.toThrow('10.0.0.7, in 10.0.0.0/8 (private); set api.import_allow_private_targets: true');
  });
});
