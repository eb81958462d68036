// Maintainer heartbeats (`maintainers/<host>.json`): each maintainer rewrites its own every pass, so an
// overview can tell work that waits for a maintainer from work no maintainer will ever do.
import type { ObjectStore } from '../object-store/object-store.ts';
import { listAll } from '../object-store/list-all.ts';
import { encodeJson, Fields, SCHEMA_VERSION } from '../repo-store/json-fields.ts';
import { MAINTAINERS_PREFIX, maintainerKey } from '../repo-store/layout.ts';

export interface Heartbeat {
  readonly host: string;
  readonly at: string;
  /** The maintainer's pass interval: a heartbeat older than three of them means the maintainer is gone. */
  readonly intervalMs: number;
}

export async function writeHeartbeat(store: ObjectStore, beat: Heartbeat): Promise<void> {
  await store.put(maintainerKey(beat.host), encodeJson({ schema: SCHEMA_VERSION, ...beat }), { contentType: 'application/json' });
}

/** Every maintainer that has reported within three of its intervals. */
export async function liveMaintainers(store: ObjectStore, now: Date): Promise<Heartbeat[]> {
  const live: Heartbeat[] = [];
  for await (const item of listAll(store, MAINTAINERS_PREFIX)) {
    const got = await store.get(item.key);
    if (got?.kind !== 'object') continue;
    try {
      const f = Fields.parse(item.key, got.body);
      const beat = { host: f.string('host'), at: f.string('at'), intervalMs: f.size('intervalMs') };
      if (now.getTime() - Date.parse(beat.at) <= 3 * beat.intervalMs + 60_000) live.push(beat);
    } catch {
      // A heartbeat of another build's schema, or a torn one: not a maintainer we can vouch for.
    }
  }
  return live;
}
