import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { bucketStores, DATA_SOCKETS, type BucketStores } from './bucket-stores.ts';
import { SHIPPING_AT_ONCE } from './shipping-rounds.ts';
import { mostAtOnce } from './shipping-places.ts';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A bucket that never answers a PUT under `held/` (an upload that takes long), and answers every other at once. */
async function slowBucket(): Promise<{ endpoint: string; held: () => number }> {
  const waiting: ServerResponse[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      if (request.url?.includes('/held/')) waiting.push(response);
      else response.writeHead(200, { etag: '"e"' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, held: () => waiting.length };
}

function stores(endpoint: string): BucketStores {
  const opened = bucketStores({ bucket: 'b', s3: { endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'k', secretAccessKey: 's' } } });
  cleanups.unshift(() => opened.destroy());
  return opened;
}

it('writes a heartbeat at once while every connection of the data path waits on an upload (review-164 F8)', async () => {
  const bucket = await slowBucket();
  const { data, leases } = stores(bucket.endpoint);
  // More uploads than the data path has connections: the rest queue in its pool.
  for (let i = 0; i < DATA_SOCKETS + 10; i++) void data.put(`replicas/t${i}/held/segment`, 'x').catch(() => {});
  await expect.poll(bucket.held, { timeout: 5_000 }).toBe(DATA_SOCKETS);

  const beat = leases.put('cluster/members/a.json', '{}');
  await expect(Promise.race([beat, new Promise((resolve) => setTimeout(() => resolve('still queued'), 2_000))])).resolves.toEqual({ kind: 'written', etag: '"e"' });
});

it("keeps the shipping rounds' uploads well below the data path's connections: sync commits, snapshots and restores use them too", () => {
  // With the places lent beyond the cap to projects holding none while one holds more than its share (shipping-places.ts).
  expect(mostAtOnce(SHIPPING_AT_ONCE)).toBeLessThanOrEqual(DATA_SOCKETS / 2);
});
