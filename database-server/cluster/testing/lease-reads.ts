import type { GetOptions } from '../../../src/object-store/object-store.ts';
import { ForwardingObjectStore } from '../../../src/object-store/testing/forwarding-object-store.ts';
import { LEASE_PREFIX } from '../lease-store.ts';

/**
 * A bucket's lease reads as a test steers them: counted in `sent`, held between `hold()` and `release()`, and failing
 * while `failing` (a bucket answering 503 SlowDown on the prefix).
 */
export class LeaseReads extends ForwardingObjectStore {
  sent = 0;
  failing = false;
  #open: Promise<void> | undefined;
  #release = () => {};

  hold(): void {
    this.#open = new Promise((resolve) => (this.#release = resolve));
  }

  release(): void {
    this.#open = undefined;
    this.#release();
  }

  override async get(key: string, options?: GetOptions) {
    if (key.startsWith(LEASE_PREFIX)) {
      this.sent++;
      if (this.failing) throw new Error('503 SlowDown');
      await this.#open;
    }
    return super.get(key, options);
  }
}
