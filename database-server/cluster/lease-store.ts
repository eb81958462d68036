// The leases in the bucket: one object per database, `cluster/leases/<tenant>.json`, only ever written with a
// compare-and-swap on its etag (or a create-if-absent), so two replicas racing for one lease never both win.
import { listAll } from '../../src/object-store/list-all.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';

/** A cw-db replica as others reach it: its name (the pod's), this process's nonce, and its two addresses. */
export interface ReplicaIdentity {
  readonly name: string;
  /** New at every process start: a restarted replica is not its previous process. */
  readonly nonce: string;
  /** Hrana's base URL, where requests for its databases are forwarded. */
  readonly url: string;
  /** The admin API's base URL. */
  readonly adminUrl: string;
}

/** One process of a replica: its name and the nonce of that process. */
export type ReplicaProcess = Pick<ReplicaIdentity, 'name' | 'nonce'>;

/** One database's lease. `holder` null: released on purpose (a graceful stop or a handover), free to take at once. */
export interface Lease {
  readonly tenant: string;
  /** Bumped by every acquisition: what the holder writes to the bucket carries it (replication/history.ts). */
  readonly epoch: number;
  readonly holder: ReplicaIdentity | null;
  /** Wall-clock time of the last write, for people: expiry is judged on each observer's own clock, not on this. */
  readonly renewedAt: string;
  /** Counts the writes of this epoch, so that every version's bytes (and so its etag) differ. */
  readonly renewals: number;
  /** Processes that could not open the database: not given it again while they live (open-failures.ts). */
  readonly failedToOpen?: readonly ReplicaProcess[];
}

/** A lease as read, with the etag the next compare-and-swap must name. */
export interface LeaseVersion {
  readonly lease: Lease;
  readonly etag: string;
}

export const LEASE_PREFIX = 'cluster/leases/';

export class LeaseStore {
  readonly #store: ObjectStore;

  constructor(store: ObjectStore) {
    this.#store = store;
  }

  async read(tenant: string): Promise<LeaseVersion | undefined> {
    const got = await this.#store.get(key(tenant));
    if (got?.kind !== 'object') return undefined;
    return { lease: JSON.parse(Buffer.from(got.body).toString('utf8')) as Lease, etag: got.etag };
  }

  /** Every lease's etag, from one listing (a lease is read again only when its etag moved). */
  async etags(): Promise<Map<string, string>> {
    const etags = new Map<string, string>();
    for await (const object of listAll(this.#store, LEASE_PREFIX)) {
      if (object.key.endsWith('.json')) etags.set(object.key.slice(LEASE_PREFIX.length, -'.json'.length), object.etag);
    }
    return etags;
  }

  /**
   * Writes `lease` if the object is still at `expected` (an etag), or absent (`expected` undefined). Answers the new version,
   * or undefined when another write came first: the caller lost the race and holds nothing.
   */
  async write(lease: Lease, expected: string | undefined): Promise<LeaseVersion | undefined> {
    const condition = expected === undefined ? { ifNoneMatch: '*' as const } : { ifMatch: expected };
    const result = await this.#store.put(key(lease.tenant), JSON.stringify(lease), { ...condition, contentType: 'application/json' });
    return result.kind === 'written' ? { lease, etag: result.etag } : undefined;
  }

  /** Removes a deleted database's lease. */
  async remove(tenant: string): Promise<void> {
    await this.#store.delete(key(tenant));
  }
}

function key(tenant: string): string {
  return `${LEASE_PREFIX}${tenant}.json`;
}
