import { describe, expect, it } from 'vitest';
import type { ListOptions } from '../src/object-store/object-store.ts';
import { MemoryObjectStore } from '../src/object-store/memory-object-store.ts';
import { ForwardingObjectStore } from '../src/object-store/testing/forwarding-object-store.ts';
import { bucketReplication } from './bucket-replication.ts';

/** A store whose listings wait for `open()`, counting how many wait at once. */
class HeldListings extends ForwardingObjectStore {
  inFlight = 0;
  most = 0;
  #open: () => void = () => {};
  readonly #opened = new Promise<void>((resolve) => (this.#open = resolve));

  override async list(prefix: string, options?: ListOptions) {
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
});
