// The replicas' heartbeats: `cluster/members/<name>.json`, rewritten by each replica every third of the lease. A
// lease names its holder; the holder is alive while its heartbeat keeps changing (lease-timing.ts), so renewing
// every lease a replica holds is one write, not one per database.
import { listAll } from '../../src/object-store/list-all.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import type { ReplicaIdentity } from './lease-store.ts';

/** A heartbeat: who, and a counter so that every beat's bytes (and so its etag) differ. */
export interface Heartbeat {
  readonly replica: ReplicaIdentity;
  readonly beats: number;
  /** Wall-clock time, for people. */
  readonly at: string;
}

const MEMBER_PREFIX = 'cluster/members/';

export class MemberStore {
  readonly #store: ObjectStore;

  constructor(store: ObjectStore) {
    this.#store = store;
  }

  async beat(heartbeat: Heartbeat): Promise<void> {
    const result = await this.#store.put(key(heartbeat.replica.name), JSON.stringify(heartbeat), { contentType: 'application/json' });
    if (result.kind !== 'written') throw new Error('the heartbeat was not written');
  }

  /** Every member's heartbeat etag, by name, from one listing. */
  async etags(): Promise<Map<string, string>> {
    const etags = new Map<string, string>();
    for await (const object of listAll(this.#store, MEMBER_PREFIX)) {
      if (object.key.endsWith('.json')) etags.set(object.key.slice(MEMBER_PREFIX.length, -'.json'.length), object.etag);
    }
    return etags;
  }

  async read(name: string): Promise<{ heartbeat: Heartbeat; etag: string } | undefined> {
    const got = await this.#store.get(key(name));
    if (got?.kind !== 'object') return undefined;
    return { heartbeat: JSON.parse(Buffer.from(got.body).toString('utf8')) as Heartbeat, etag: got.etag };
  }

  /** A replica stopping gracefully leaves: the others count it gone at once instead of after a lease. */
  async leave(name: string): Promise<void> {
    await this.#store.delete(key(name));
  }
}

function key(name: string): string {
  return `${MEMBER_PREFIX}${name}.json`;
}
