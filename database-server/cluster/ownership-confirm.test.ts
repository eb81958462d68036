import { expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/log.ts';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { Ownership } from './ownership.ts';
import { LeaseReads } from './testing/lease-reads.ts';
import { DurabilityUnconfirmedError } from '../durability-unconfirmed.ts';

/** Replica `name` owning database `t` (or not) on `store`, by the clock `clocks[name]`; its drops noted in `drops`. */
function replica(name: string, store: ObjectStore, clocks: Record<string, number>, drops: string[], confirmStore?: ObjectStore): Ownership {
  return new Ownership({
    store,
    ...(confirmStore ? { confirmStore } : {}),
    self: { name, nonce: `${name}-nonce`, url: `http://${name}`, adminUrl: `http://${name}-admin` },
    leaseMs: 3000,
    log: silentLogger,
    clock: () => clocks[name] ?? 0,
    hooks: {
      tenants: async () => ['t'],
      adopt: async () => true,
      drop: async (tenant, reason) => void drops.push(`${name} drops ${tenant} (${reason})`),
      discard: async () => {},
      highestEpoch: async () => 0,
    },
  });
}

it('confirms a commit only while the lease read after it is still its own: an owner whose clock stood still (a paused VM) is refused once another took over (review-164 F5)', async () => {
  const store = new MemoryObjectStore();
  const clocks = { a: 0, b: 0 };
  const drops: string[] = [];
  const a = replica('a', store, clocks, drops);
  await a.tick();
  const b = replica('b', store, clocks, drops);
  await b.tick();
  expect(a.held().get('t')).toBe(1);
  expect(await a.confirm('t', 1)).toBe(true);

  // a's VM is paused for 10 s: b's clock runs, a's does not (CLOCK_MONOTONIC stops while a guest is stopped).
  for (clocks.b = 1000; clocks.b <= 10_000; clocks.b += 1000) await b.tick();
  expect(b.held().get('t')).toBe(2);
  // a resumes: by its clock the lease holds until its next round reads it; the read after the upload says otherwise.
  expect(a.surelyHeld('t', 1)).toBe(true);
  await expect(a.confirm('t', 1)).rejects.toThrow(/Another replica took the database over/);
  expect(a.held().has('t')).toBe(false);
  expect(drops).toEqual(['a drops t (lost)']);
});

it('reads the lease once for the commits that ask together, and again, after it, for those that ask while it is under way', async () => {
  const store = new MemoryObjectStore();
  const reads = new LeaseReads(store);
  const a = replica('a', store, { a: 0 }, [], reads);
  await a.tick();
  expect(a.held().get('t')).toBe(1);

  expect(await Promise.all([1, 2, 3, 4, 5].map(() => a.confirm('t', 1)))).toEqual([true, true, true, true, true]);
  expect(reads.sent).toBe(1);

  reads.hold();
  const first = a.confirm('t', 1);
  await expect.poll(() => reads.sent).toBe(2);
  // Their segments landed after that read was sent: it proves nothing for them, so they wait for the next one.
  const later = [a.confirm('t', 1), a.confirm('t', 1)];
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(reads.sent).toBe(2);
  reads.release();
  expect(await Promise.all([first, ...later])).toEqual([true, true, true]);
  expect(reads.sent).toBe(3);
});

it('answers a lease it could not read after the upload as unconfirmed, not as a commit not copied; still the owner (review-171 F6)', async () => {
  const store = new MemoryObjectStore();
  const reads = new LeaseReads(store);
  const a = replica('a', store, { a: 0 }, [], reads);
  await a.tick();
  reads.failing = true;
  await expect(a.confirm('t', 1)).rejects.toBeInstanceOf(DurabilityUnconfirmedError);
  expect(a.surelyHeld('t', 1)).toBe(true);
});
