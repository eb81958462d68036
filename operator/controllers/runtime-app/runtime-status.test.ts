import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpRuntimeStatus, RuntimeUnavailableError } from './runtime-status.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A status endpoint answering `status` with `body` for every path; records the paths asked. */
async function endpoint(status: number, body: unknown, paths: string[] = []): Promise<string> {
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const report = { namespace: 'p', app: 'a', servingBuildId: 'b-1', hosts: ['a.p.apps.localhost'], url: 'https://a.p.apps.localhost', servedGeneration: 1, observedGeneration: 1 };

describe('HttpRuntimeStatus', () => {
  it('asks every replica, 404 meaning it knows nothing of the app', async () => {
    const paths: string[] = [];
    const status = new HttpRuntimeStatus([`${await endpoint(200, report, paths)}/`, await endpoint(404, { title: 'Not Found' })]);
    expect(await status.app('p', 'a')).toEqual([report, undefined]);
    expect(paths).toEqual(['/apps/p/a']);
  });

  it.each([
    ['a 5xx', async () => endpoint(503, {})],
    ['a refused connection', async () => 'http://127.0.0.1:1'],
  ])('is unavailable on %s', async (_name, url) => {
    await expect(new HttpRuntimeStatus([await url()]).app('p', 'a')).rejects.toThrow(RuntimeUnavailableError);
  });

  it('reads CW_RUNTIME_STATUS_URL as a comma-separated list', () => {
    expect(HttpRuntimeStatus.fromEnv(undefined)).toBeUndefined();
    expect(HttpRuntimeStatus.fromEnv(' ')).toBeUndefined();
    expect(HttpRuntimeStatus.fromEnv('http://a:1, http://b:2')).toBeInstanceOf(HttpRuntimeStatus);
  });
});
