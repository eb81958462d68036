import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeReplica } from '../../src/apis/v1alpha1/runtime-replica.ts';
import type { AppLogEntry } from '../../src/runtime-contract/app-logs.ts';
import { AppLogSource } from './app-log-source.ts';

/** A replica's status port answering an app's recent entries: `count` of `chars` characters each, a millisecond apart. */
function replica(offset: number, count: number, chars: number): Server {
  return createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < count; i++) {
      const entry: AppLogEntry = {
        time: new Date(Date.UTC(2026, 0, 1) + i * 2 + offset).toISOString(),
        buildId: 'b',
        outcome: 'ok',
        logs: [{ time: '', level: 'log', message: 'x'.repeat(chars) }],
        exceptions: [],
      };
      res.write(`event: log\ndata: ${JSON.stringify(entry)}\n\n`);
    }
    res.end('event: live\ndata: {}\n\n');
  });
}

const servers = [replica(0, 100, 20_000), replica(1, 100, 20_000)];
const urls: string[] = [];
beforeAll(async () => {
  for (const server of servers) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
});
afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

describe('AppLogSource', () => {
  it('gives a first screen of at most a MiB of every replica’s recent entries, the newest, in time order', async () => {
    const replicas = urls.map((url, i) => ({ metadata: { name: `r${i}` }, spec: { statusURL: url } }) as RuntimeReplica);
    const source = new AppLogSource({ live: () => replicas });
    const times: string[] = [];
    let bytes = 0;
    for await (const event of source.open('p', 'a', { recent: 100, follow: false, signal: new AbortController().signal })) {
      if (event.type !== 'log') continue;
      times.push(event.entry.time);
      const { replica: _replica, ...entry } = event.entry;
      bytes += JSON.stringify(entry).length;
    }
    // 200 entries of about 20 KB were offered; the newest that fit a MiB are given, oldest first.
    expect(bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(times.length).toBeGreaterThan(40);
    expect(times.length).toBeLessThan(60);
    expect(times).toEqual([...times].sort());
    expect(times.at(-1)).toBe(new Date(Date.UTC(2026, 0, 1) + 99 * 2 + 1).toISOString());
  });
});
