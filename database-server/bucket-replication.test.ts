import { describe, expect, it } from 'vitest';
import type { ListOptions, ObjectStore } from '../src/object-store/object-store.ts';
import { MemoryObjectStore } from '../src/object-store/memory-object-store.ts';
import { ForwardingObjectStore } from '../src/object-store/testing/forwarding-object-store.ts';
import { bucketReplication } from './bucket-replication.ts';

/** A store whose listings (those under a prefix `held` picks) wait for `open()`, counting how many wait at once. */
class HeldListings extends ForwardingObjectStore {
  inFlight = 0;
  most = 0;
  #open: () => void = () => {};
  readonly #opened = new Promise<void>((resolve) => (this.#open = resolve));
  readonly #held: (prefix: string) => boolean;

  constructor(inner: ObjectStore, held: (prefix: string) => boolean = () => true) {
    super(inner);
    this.#held = held;
  }

  override async list(prefix: string, options?: ListOptions) {
    if (!this.#held(prefix)) return super.list(prefix, options);
    this.inFlight++;
    this.most = Math.max(this.most, this.inFlight);
    try {
      await this.#opened;
      return await super.list(prefix, options);
    } finally {
      this.inFlight--;
    }
  }

  open(): void {
    this.#open();
  }
}

describe('bucketReplication', () => {
  it('runs at most the given number of restores at once, the others in turn', async () => {
    const store = new HeldListings(new MemoryObjectStore());
    const replication = bucketReplication(store, 'replicas/', 2);
    const restores = Array.from({ length: 10 }, (_, i) => replication.restore(`t${i}`, `/nonexistent/t${i}.db`));
    await expect.poll(() => store.inFlight).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.inFlight).toBe(2);
    store.open();
    expect(await Promise.all(restores)).toEqual(Array.from({ length: 10 }, () => null)); // nothing of them in the bucket
    expect(store.most).toBe(2);
  });

  it('keeps restores a tenant asked for (copies, in-place restores) in a queue of their own: they never hold up a database coming back', async () => {
    const store = new HeldListings(new MemoryObjectStore(), (prefix) => prefix.includes('copy-'));
    const replication = bucketReplication(store, 'replicas/', 2);
    const copies = Array.from({ length: 6 }, (_, i) => replication.restore(`copy-${i}`, `/nonexistent/c${i}.db`, Date.now(), { asked: true }));
    await expect.poll(() => store.inFlight).toBe(1); // half the width
    // A takeover's restore runs at once, though six copies wait.
    expect(await replication.restore('taken-over', '/nonexistent/t.db')).toBeNull();
    store.open();
    expect(await Promise.all(copies)).toEqual(Array.from({ length: 6 }, () => null));
    expect(store.most).toBe(1);
  });
});
