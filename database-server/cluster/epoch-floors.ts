// The last lease epoch of each deleted database, `cluster/epoch-floors/<tenant>.json`: a database created again
// under the same id takes its lease above it, so it outranks whatever the deleted one's owners still upload (a
// snapshot landing after the deletion, review-164 F2), which its creation's takeover record then cuts. Outside the
// leases' prefix, so the rounds never list nor read them: one small object per deleted id, read only at a creation.
import type { ObjectStore } from '../../src/object-store/object-store.ts';

export const FLOOR_PREFIX = 'cluster/epoch-floors/';

export class EpochFloors {
  readonly #store: ObjectStore;

  constructor(store: ObjectStore) {
    this.#store = store;
  }

  /** The epoch a new lease of `tenant` must go above (0: never deleted). */
  async read(tenant: string): Promise<number> {
    return (await this.#version(tenant))?.epoch ?? 0;
  }

  /** Raises the floor of `tenant` to `epoch`, never lowering it (a deleter that resumed late writes an older one). */
  async raise(tenant: string, epoch: number): Promise<void> {
    for (;;) {
      const current = await this.#version(tenant);
      if (current !== undefined && current.epoch >= epoch) return;
      const condition = current === undefined ? { ifNoneMatch: '*' as const } : { ifMatch: current.etag };
      const result = await this.#store.put(key(tenant), JSON.stringify({ tenant, epoch }), { ...condition, contentType: 'application/json' });
      if (result.kind === 'written') return;
    }
  }

  async #version(tenant: string): Promise<{ epoch: number; etag: string } | undefined> {
    const got = await this.#store.get(key(tenant));
    if (got?.kind !== 'object') return undefined;
    const { epoch } = JSON.parse(Buffer.from(got.body).toString('utf8')) as { epoch: number };
    return { epoch, etag: got.etag };
  }
}

function key(tenant: string): string {
  return `${FLOOR_PREFIX}${tenant}.json`;
}
