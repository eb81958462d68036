import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/log.ts';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { deleteReplica } from '../replication/replica-admin.ts';
import { readHistory, recordTakeover } from '../replication/history.ts';
import { planRestore } from '../replication/restore-plan.ts';
import { highestEpoch, newGenerationId, snapshotKey, tenantRoot } from '../replication/bucket-layout.ts';
import { EpochFloors } from './epoch-floors.ts';
import { LeaseStore } from './lease-store.ts';
import { Ownership } from './ownership.ts';

function ownership(store: MemoryObjectStore, tenants: string[] = [], adopted: number[] = []): Ownership {
  return new Ownership({
    store,
    self: { name: 'a', nonce: 'a-nonce', url: 'http://a', adminUrl: 'http://a-admin' },
    leaseMs: 3000,
    log: silentLogger,
    clock: () => 0,
    hooks: {
      tenants: async () => tenants,
      adopt: async (_tenant, fencing) => (adopted.push(fencing.epoch), true),
      drop: async () => {},
      discard: async () => {},
      highestEpoch: (tenant) => highestEpoch(store, tenantRoot('replicas/', tenant)),
    },
  });
}

describe('epoch floors (review-164 F2)', () => {
  it('a database created again after a delete takes its lease above the deleted one, whose leftover snapshot then never wins a restore', async () => {
    const store = new MemoryObjectStore();
    const a = ownership(store);
    await a.tick();
    // The old database's lease after a few takeovers: released at epoch 4, claimed (created) at 5.
    await new LeaseStore(store).write({ tenant: 't', epoch: 4, holder: null, renewedAt: '', renewals: 0 }, undefined);
    expect((await a.claimNew('t'))?.epoch).toBe(5);
    const root = tenantRoot('replicas/', 't');
    await deleteReplica({ store, prefix: 'replicas/', tenant: 't' });
    await a.forget('t');
    expect(await new LeaseStore(store).read('t')).toBeUndefined();
    // A stale epoch-5 upload (a snapshot gzipped and put after its guard) lands after the deletion.
    const leftover = newGenerationId(1_000, 5);
    await store.put(snapshotKey(root, leftover, 0, 1_000), 'old data');
    const again = await a.claimNew('t');
    expect(again?.epoch).toBe(6);
    // The creation records that it follows nothing (tenant-directory.ts), then snapshots the new database.
    await recordTakeover(store, root, { epoch: again?.epoch ?? 0, follows: null });
    const fresh = newGenerationId(2_000, again?.epoch);
    await store.put(snapshotKey(root, fresh, 0, 2_000), 'new data');
    expect(planRestore(await readHistory(store, root))?.snapshot.generation).toBe(fresh);
  });

  it('takes a database whose lease is gone above every epoch its data in the bucket was written under (review-164, under F2)', async () => {
    const store = new MemoryObjectStore();
    const root = tenantRoot('replicas/', 't');
    // Owned up to epoch 5 (a takeover record of epoch 4, a generation of 5), then its lease removed (a prefix cleaned by hand).
    await recordTakeover(store, root, { epoch: 4, follows: null });
    const old = newGenerationId(1_000, 5);
    await store.put(snapshotKey(root, old, 0, 1_000), 'data at epoch 5');
    const adopted: number[] = [];
    await ownership(store, ['t'], adopted).tick();
    expect(adopted).toEqual([6]);
    expect((await new LeaseStore(store).read('t'))?.lease.epoch).toBe(6);
    // Its new owner's generation outranks the old one's, as after any takeover.
    await recordTakeover(store, root, { epoch: 6, follows: { generation: old, nextSeq: 0 } });
    const mine = newGenerationId(2_000, 6);
    await store.put(snapshotKey(root, mine, 0, 2_000), 'data at epoch 6');
    expect(planRestore(await readHistory(store, root))?.snapshot.generation).toBe(mine);
  });

  it('never lowers a floor (a deleter that resumed late), and an id never deleted has none', async () => {
    const floors = new EpochFloors(new MemoryObjectStore());
    expect(await floors.read('t')).toBe(0);
    await floors.raise('t', 7);
    await floors.raise('t', 3);
    expect(await floors.read('t')).toBe(7);
    await floors.raise('t', 9);
    expect(await floors.read('t')).toBe(9);
  });
});
