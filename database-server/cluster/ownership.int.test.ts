// Replicas racing for one database's lease on the real MinIO: never two holders that may write at once.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { silentLogger } from '../../src/logging/log.ts';
import { ensureBucket } from '../../src/object-store/s3-buckets.ts';
import { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import type { Fencing } from '../replication-port.ts';
import { Ownership } from './ownership.ts';

const LEASE_MS = 1500;
let store: S3ObjectStore;

// A bucket per test: replicas of one test must not see another's heartbeats.
beforeEach(async () => {
  const bucket = `cw-db-leases-${randomBytes(4).toString('hex')}`;
  await ensureBucket(inject('s3'), bucket);
  store = new S3ObjectStore({ config: inject('s3'), bucket, registry: new Registry() });
});
afterEach(() => store.destroy());

/** A replica whose rounds the test drives; every write it makes for the database passes its guard first. */
function replica(name: string, tenants: string[], writes: { name: string; epoch: number; at: number }[]) {
  const fenced = new Map<string, Fencing>();
  const ownership = new Ownership({
    store,
    self: { name, nonce: randomBytes(4).toString('hex'), url: `http://${name}`, adminUrl: `http://${name}` },
    leaseMs: LEASE_MS,
    log: silentLogger,
    hooks: {
      tenants: async () => tenants,
      adopt: async (tenant, fencing) => {
        fenced.set(tenant, fencing);
        return true;
      },
      drop: async (tenant) => void fenced.delete(tenant),
      discard: async () => {},
      highestEpoch: async () => 0,
    },
  });
  /** Writes once for `tenant` if the guard lets it: the log is what "both wrote" would show. */
  const write = (tenant: string) => {
    const fencing = fenced.get(tenant);
    if (!fencing) return;
    try {
      fencing.guard();
    } catch {
      return;
    }
    writes.push({ name, epoch: fencing.epoch, at: performance.now() });
  };
  return { name, ownership, write };
}

describe('leases on MinIO', () => {
  it('lets exactly one of two replicas creating the same database at once take its lease', async () => {
    const [a, b] = [replica('race-a', [], []), replica('race-b', [], [])];
    for (let i = 0; i < 10; i++) {
      // Both beat first: a claim is refused past the claimer's own deadline.
      await Promise.all([a.ownership.tick(), b.ownership.tick()]);
      const tenant = `fresh-${i}`;
      const won = await Promise.all([a.ownership.claimNew(tenant), b.ownership.claimNew(tenant)]);
      expect(
        won.filter((f) => f !== undefined),
        tenant,
      ).toHaveLength(1);
    }
  });

  it('two replicas racing to take over a silent holder: one wins, at the next epoch, and never while the old holder may still write', async () => {
    const tenant = 'contested';
    const writes: { name: string; epoch: number; at: number }[] = [];
    const holder = replica('holder', [tenant], writes);
    await holder.ownership.tick();
    expect(holder.ownership.held().get(tenant)).toBe(1);
    const contenders = [replica('contender-1', [tenant], writes), replica('contender-2', [tenant], writes)];
    await Promise.all(contenders.map((c) => c.ownership.tick()));

    // The holder writes without beating (a process stuck, or cut off from the bucket) while both contenders race:
    // rounds at the same moments, so their compare-and-swaps on the lease meet.
    const until = performance.now() + 4 * LEASE_MS;
    while (performance.now() < until) {
      holder.write(tenant);
      for (const c of contenders) c.write(tenant);
      await Promise.all(contenders.map((c) => c.ownership.tick()));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    const winners = contenders.filter((c) => c.ownership.held().has(tenant));
    expect(winners.map((w) => w.name)).toHaveLength(1);
    expect(winners[0]?.ownership.held().get(tenant)).toBe(2);
    const byHolder = writes.filter((w) => w.name === 'holder');
    const byWinner = writes.filter((w) => w.name === winners[0]?.name);
    expect(byHolder.length, 'the holder wrote before its deadline').toBeGreaterThan(0);
    expect(byWinner.length, 'the winner wrote after taking over').toBeGreaterThan(0);
    const lastOld = Math.max(...byHolder.map((w) => w.at));
    const firstNew = Math.min(...byWinner.map((w) => w.at));
    process.stdout.write(`leases: the holder's last write ${(firstNew - lastOld).toFixed(0)} ms before the successor's first (lease ${LEASE_MS} ms)\n`);
    expect(lastOld).toBeLessThan(firstNew);
    expect(writes.filter((w) => w.name !== 'holder').every((w) => w.name === winners[0]?.name)).toBe(true);
  });
});
