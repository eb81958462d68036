// The lease reads that confirm a synchronous commit (review-164 F5): the deadline is on this process's monotonic
// clock, which stands still while its VM is paused, so a process resumed after another replica took its database
// over still counts the lease held. A lease read sent after a segment landed is clock-free: if it still shows the
// version this process wrote, any takeover comes after it, and the successor's restore lists the bucket later
// still, so it restores the segment.
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { LeaseStore, type LeaseVersion } from './lease-store.ts';

/**
 * One lease read per database for every commit waiting together: a caller joins the read not yet sent (it is sent
 * after the caller asked, so after its segment landed), never one already under way.
 */
export class LeaseConfirmations {
  readonly #leases: LeaseStore;
  /** The read of each database still taking callers: sent on the next turn of the event loop, or after the one under way. */
  readonly #gathering = new Map<string, Promise<LeaseVersion | undefined>>();
  /** The read sent for each database, settled either way (what the next one waits for). */
  readonly #underWay = new Map<string, Promise<void>>();

  constructor(store: ObjectStore) {
    this.#leases = new LeaseStore(store);
  }

  /** The lease of `tenant`, read by a GET sent after this call. */
  read(tenant: string): Promise<LeaseVersion | undefined> {
    const gathering = this.#gathering.get(tenant);
    if (gathering) return gathering;
    // A turn of the event loop first, so the other commits of the upload that just landed join this read.
    const before = this.#underWay.get(tenant) ?? new Promise<void>((resolve) => setImmediate(resolve));
    const read = before.then(() => this.#send(tenant));
    this.#gathering.set(tenant, read);
    return read;
  }

  #send(tenant: string): Promise<LeaseVersion | undefined> {
    this.#gathering.delete(tenant);
    const read = this.#leases.read(tenant);
    const settled = read.then(
      () => {},
      () => {},
    );
    this.#underWay.set(tenant, settled);
    void settled.then(() => {
      if (this.#underWay.get(tenant) === settled) this.#underWay.delete(tenant);
    });
    return read;
  }
}
