import { describe, expect, it } from 'vitest';
import { TenantLock } from './tenant-lock.ts';

describe('TenantLock', () => {
  const busy = () => new Error('busy');

  it('hands the lock to waiters in order, and to one asking first ahead of them (an in-place restore)', async () => {
    const lock = new TenantLock();
    const [holder, a, b, restore] = [{}, {}, {}, {}];
    await lock.acquire(holder, 1000, busy);
    const granted: object[] = [];
    const waits = [a, b].map((owner) => lock.acquire(owner, 1000, busy).then(() => granted.push(owner)));
    const first = lock.acquire(restore, 1000, busy, { first: true }).then(() => granted.push(restore));
    lock.release(holder);
    await first;
    expect(lock.holder).toBe(restore);
    lock.release(restore);
    await waits[0];
    lock.release(a);
    await waits[1];
    expect(granted).toEqual([restore, a, b]);
  });

  it('refuses with the given error after the timeout', async () => {
    const lock = new TenantLock();
    await lock.acquire({}, 1000, busy);
    await expect(lock.acquire({}, 10, busy, { first: true })).rejects.toThrow('busy');
  });

  it('waits as long as it takes with an infinite timeout (a deletion or a release closing the connection)', async () => {
    const lock = new TenantLock();
    const holder = {};
    await lock.acquire(holder, 1000, busy);
    const closer = {};
    const outcome = lock.acquire(closer, Infinity, busy).then(
      () => 'granted',
      () => 'refused',
    );
    // Node fires a timer set to Infinity after 1 ms: the waiter must still be waiting well past that.
    await new Promise((resolve) => setTimeout(resolve, 20));
    lock.release(holder);
    expect(await outcome).toBe('granted');
    expect(lock.holder).toBe(closer);
  });
});
