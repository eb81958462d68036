import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeReadiness } from './runtime-readiness.ts';

/** A stand-in status endpoint answering `/readyz` with `status`, or never (real HTTP, as cw-runtime's). */
async function statusServer(status: number | 'hang'): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => void (status !== 'hang' && res.writeHead(status).end(status === 200 ? 'ok' : 'not ready')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let ready: string;
let starting: string;
let hanging: string;
const servers: Server[] = [];

beforeAll(async () => {
  const made = await Promise.all([statusServer(200), statusServer(503), statusServer('hang')]);
  [ready, starting, hanging] = made.map((m) => m.url) as [string, string, string];
  servers.push(...made.map((m) => m.server));
});
afterAll(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

// The check's real 1 s limit is the subject of the hanging case (its cost is that limit, not more).
const check = (urls: string) => runtimeReadiness(urls)[0]!.check(AbortSignal.timeout(1_000));

describe('runtimeReadiness', () => {
  it('is no check at all without runtime status URLs', () => {
    expect(runtimeReadiness(undefined)).toEqual([]);
    expect(runtimeReadiness(' , ')).toEqual([]);
  });

  it('passes while any replica is ready, however many are starting, gone or hanging', async () => {
    await expect(check(ready)).resolves.toBeUndefined();
    await expect(check(`${starting}, ${ready}/, http://127.0.0.1:9, ${hanging}`)).resolves.toBeUndefined();
  });

  it('fails when no replica is ready', async () => {
    await expect(check(starting)).rejects.toThrow();
    await expect(check(`${starting},http://127.0.0.1:9`)).rejects.toThrow();
    // A hanging replica costs the check's time limit, not more.
    const t0 = performance.now();
    await expect(check(`${hanging},${starting}`)).rejects.toThrow();
    expect(performance.now() - t0).toBeLessThan(3_000);
  });
});
