// The timer's shipping of every tenant's commits to the bucket: rounds that start a bounded number of uploads at
// once, projects in turn (shipping-places.ts), and never wait for one long upload before starting the next tenant.
import type { Logger } from '../src/logging/log.ts';
import { ShippingTurns } from './shipping-places.ts';
import type { Entry } from './tenant-entry.ts';

/**
 * Tenants the shipping rounds upload at once (review-164 F8): well below the data store's connections
 * (bucket-stores.ts), which synchronous commits' uploads, snapshots and restores use too. The rest wait for the next
 * round, which begins with them.
 */
export const SHIPPING_AT_ONCE = 16;

/** Ships the directory's tenants (its live map: tenants come and go between rounds), {@link SHIPPING_AT_ONCE} at a time. */
export class ShippingRounds {
  readonly #tenants: ReadonlyMap<string, Entry>;
  /** Whose turn it is to ship first when the cap leaves some for the next round: a project's, then its tenant's. */
  readonly #turns: ShippingTurns;
  readonly #log: Logger;

  constructor(tenants: ReadonlyMap<string, Entry>, atOnce: number, log: Logger) {
    this.#tenants = tenants;
    this.#turns = new ShippingTurns(atOnce);
    this.#log = log;
  }

  /**
   * Ships every `ms` (cw-db's flush interval): each round starts tenants not shipping already, at most
   * {@link SHIPPING_AT_ONCE} shipping at a time, and does not wait for them. A timer that waited for the whole round
   * held every tenant back behind one long upload (a hostile tenant's gigabytes, written faster than they upload):
   * no other tenant's commits went to the bucket and no WAL was checkpointed for minutes.
   */
  every(ms: number): { stop(): void } {
    const timer = setInterval(() => void this.#round(), ms);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }

  /**
   * Ships every tenant's pending commits, then lets its replica checkpoint or snapshot: each tenant once, in rounds
   * of at most {@link SHIPPING_AT_ONCE}. Each tenant ships on its own: one whose checkpoint waits for a long
   * transaction does not hold back the others, and a tenant still shipping is waited for, not started again.
   * Resolves when the work of every tenant is done.
   */
  async flushAll(): Promise<void> {
    const waiting = new Set(this.#tenants.values());
    let running = Promise.resolve();
    for (;;) {
      running = this.#round((entry) => waiting.has(entry));
      for (const entry of waiting) if (entry.shipping || !this.#due(entry) || this.#tenants.get(entry.meta.tenant) !== entry) waiting.delete(entry);
      // Those left wait for a place: the next as soon as any upload ends, not once the whole batch has (review-171 F4).
      const uploads = [...this.#tenants.values()].flatMap((entry) => [entry.uploading, entry.maintaining, entry.snapshotUpload].filter((p) => p !== undefined));
      if (waiting.size === 0 || uploads.length === 0) break;
      await Promise.race(uploads);
    }
    await running;
  }

  /**
   * Starts shipping the tenants with commits pending that `mayStart`, as many as the cap leaves room for, from where
   * the last round left off. Resolves once every tenant's shipping and snapshot upload under way has settled.
   */
  #round(mayStart: (entry: Entry) => boolean = () => true): Promise<void> {
    const entries = [...this.#tenants.values()];
    const projectOf = (entry: Entry) => entry.meta.project ?? entry.meta.tenant;
    const held = new Map<string, number>();
    for (const entry of entries) {
      const places = (entry.uploading || entry.maintaining ? 1 : 0) + (entry.snapshotUpload ? 1 : 0);
      if (places > 0) held.set(projectOf(entry), (held.get(projectOf(entry)) ?? 0) + places);
    }
    const starting = this.#turns.pick(
      entries.filter((e) => mayStart(e) && this.#due(e)),
      held,
      (e) => ({ project: projectOf(e), tenant: e.meta.tenant }),
    );
    for (const entry of starting) this.#ship(entry);
    const running: Promise<void>[] = [];
    for (const entry of entries) {
      if (entry.shipping) running.push(entry.shipping.then(() => entry.snapshotUpload));
      else if (entry.snapshotUpload) running.push(entry.snapshotUpload);
    }
    return Promise.all(running).then(() => undefined);
  }

  /** Whether a round should start shipping the tenant: commits pending, nothing of it shipping, no restore replacing it. */
  #due(entry: Entry): boolean {
    return entry.replica !== undefined && !entry.shipping && !entry.restoring && entry.replica.pendingBytes > 0;
  }

  #ship(entry: Entry): void {
    const replica = entry.replica;
    if (!replica) return;
    const uploading = replica.flush();
    entry.uploading = uploading.then(
      () => {},
      () => {},
    );
    void entry.uploading.then(() => (entry.uploading = undefined));
    entry.shipping = uploading
      .then(() => replica.maintain())
      .then(({ snapshot }) => {
        if (!snapshot) return;
        entry.snapshotUpload = snapshot
          .catch((err: unknown) => this.#log.warn('uploading a snapshot failed; another is taken later', { tenant: entry.meta.tenant, err }))
          .finally(() => (entry.snapshotUpload = undefined));
      })
      .catch((err: unknown) => this.#log.warn('shipping to the bucket failed; retrying', { tenant: entry.meta.tenant, err }))
      .finally(() => (entry.shipping = undefined));
  }
}
