import { afterAll, describe, expect, inject, it } from 'vitest';
import { Registry } from 'prom-client';
import { S3ObjectStore } from '../object-store/s3-object-store.ts';
import { RepoStore } from './repo-store.ts';
import { describeRepoStoreScenarios, newRepoName, oid, smallPack, update, Z } from './testing/repo-store-scenarios.ts';

const clients: S3ObjectStore[] = [];
function connect(registry = new Registry()): S3ObjectStore {
  const client = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket'), registry });
  clients.push(client);
  return client;
}
afterAll(() => clients.forEach((c) => c.destroy()));

describeRepoStoreScenarios('S3ObjectStore on MinIO', () => ({ connect: () => connect() }));

async function requests(registry: Registry): Promise<{ total: number; byOp: Record<string, number> }> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'service_store_requests_total');
  const byOp: Record<string, number> = {};
  let total = 0;
  for (const v of (metric?.values ?? []) as { labels: Record<string, string>; value: number }[]) {
    const label = `${v.labels.op}:${v.labels.outcome}`;
    byOp[label] = (byOp[label] ?? 0) + v.value;
    total += v.value;
  }
  return { total, byOp };
}

describe('RepoStore request budget, measured by service_store_requests_total', () => {
  it('a small push is 5 requests, a ref update 3, a warm read 1', async () => {
    const registry = new Registry();
    const store = new RepoStore({ store: connect(registry) });
    const repo = newRepoName();
    await store.createRepo(repo);
    registry.resetMetrics();

    const pushed = await store.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('a') }], { kind: 'push', pack: smallPack() }));
    expect(pushed.outcome).toBe('published');
    expect(await requests(registry)).toEqual({ total: 5, byOp: { 'put:ok': 4, 'get:ok': 1 } });

    registry.resetMetrics();
    await store.publish(repo, update([{ ref: 'refs/heads/main', old: oid('a'), new: oid('b') }]));
    expect((await requests(registry)).total).toBe(3);

    registry.resetMetrics();
    const head = await store.readHead(repo);
    expect(head.seq).toBe(2);
    expect(await requests(registry)).toEqual({ total: 1, byOp: { 'get:ok': 1 } });
  });
});
