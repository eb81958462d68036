import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuntimeReplica } from '../../src/apis/v1alpha1/runtime-replica.ts';
import { ReplicaMetrics } from './replica-metrics.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** A status port that answers with `answer` (or never, with `undefined`), recording what it was asked. */
async function statusPort(answer: ((path: string, auth: string | undefined) => unknown) | undefined): Promise<string> {
  const server = createServer((req, res) => {
    if (!answer) return; // hangs: a replica that does not answer in time
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(req.url ?? '', req.headers.authorization)));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const replica = (name: string, statusURL?: string) => ({ metadata: { name }, spec: { ready: true, apps: [], ...(statusURL ? { statusURL } : {}) } }) as unknown as RuntimeReplica;

describe('ReplicaMetrics', () => {
  it('reads every live replica at once with the status token, and names those that fail, are late or have no status port', async () => {
    const asked: string[] = [];
    const fast = await statusPort((path, auth) => {
      asked.push(`${path} ${auth}`);
      return { started: 1, bucketsMs: [], minutes: [], builds: {} };
    });
    const slow = await statusPort(undefined);
    const live = [replica('a', fast), replica('b', slow), replica('c'), replica('d', 'http://127.0.0.1:9')];
    const metrics = new ReplicaMetrics({ live: () => live }, 'secret', 300);
    const t0 = performance.now();
    const read = await metrics.app('p', 'web', 1234);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(read.answered.map((r) => r.replica)).toEqual(['a']);
    expect(read.missing).toEqual(['b', 'c', 'd']);
    expect(read.live).toBe(4);
    expect(asked).toEqual(['/apps/p/web/metrics?since=1234 Bearer secret']);
  });
});
