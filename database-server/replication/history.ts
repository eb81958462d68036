// Which of a tenant's generations are its history, when several cw-db replicas have owned it in turn (leases,
// database-server/cluster). Each owner writes under its lease epoch, and before its first generation records
// where it took the tenant over: the generation and the first segment its restore did not apply (`follows`).
// Whatever an older owner wrote past that point (it may have gone on for a moment, not knowing it had lost the
// lease) is not history: never restored, never merged. Pure, so restore, window and prune agree on it.
import { followsKey, readListing, type FollowsMarker, type Generation, type HistoryPoint, type TenantListing } from './bucket-layout.ts';
import { planRestore } from './restore-plan.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';

/**
 * The generations that are the tenant's history, oldest first, each cut where a later owner took over: a marker of
 * epoch `f` following generation `G` at segment `n` drops every generation of an epoch below `f` that comes after
 * `G`, and keeps of `G` only the segments below `n` and the snapshots holding no more than them. A marker following
 * nothing drops every generation of an epoch below `f`. Generations written without a lease (epoch 0) are cut by
 * markers like any other.
 */
export function tenantHistory(listing: TenantListing): Generation[] {
  const { generations, markers } = listing;
  const order = new Map(generations.map((g, i) => [g.id, i]));
  const caps = new Map<string, number>();
  const dropped = new Set<string>();
  for (const marker of markers) {
    const from = marker.follows === null ? -1 : (order.get(marker.follows.generation) ?? -1);
    for (const [i, g] of generations.entries()) if (g.epoch < marker.epoch && i > from) dropped.add(g.id);
    if (marker.follows !== null && from >= 0) caps.set(marker.follows.generation, Math.min(caps.get(marker.follows.generation) ?? Infinity, marker.follows.nextSeq));
  }
  return generations
    .filter((g) => !dropped.has(g.id))
    .map((g) => {
      const cap = caps.get(g.id);
      if (cap === undefined) return g;
      return { ...g, snapshots: g.snapshots.filter((s) => s.seq <= cap), segments: g.segments.filter((s) => s.seq < cap) };
    });
}

/** The tenant's history in the bucket under `root` (see {@link tenantHistory}). */
export async function readHistory(store: ObjectStore, root: string): Promise<Generation[]> {
  return tenantHistory(await readListing(store, root));
}

/**
 * Where a restore of the latest state would stop (the generation and the first of its segments it would not apply),
 * without restoring: what an owner that kept its own local file records as the point it took the tenant over from.
 */
export async function historyEnd(store: ObjectStore, root: string): Promise<HistoryPoint | null> {
  const plan = planRestore(await readHistory(store, root));
  return plan && { generation: plan.snapshot.generation, nextSeq: plan.snapshot.seq + plan.segments.length };
}

/** Records, before the owner of `marker.epoch` writes anything else, where it took the tenant over. */
export async function recordTakeover(store: ObjectStore, root: string, marker: FollowsMarker): Promise<void> {
  const result = await store.put(followsKey(root, marker.epoch, marker.follows), '', { contentType: 'application/octet-stream' });
  if (result.kind !== 'written') throw new Error(`the takeover record of epoch ${marker.epoch} was not written`);
}
