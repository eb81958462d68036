// What is done to a tenant's replica as a whole: its restore window, pruning to a retention, deletion.
import { listAll } from '../../src/object-store/list-all.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { tenantRoot, type Generation } from './bucket-layout.ts';
import { readHistory } from './history.ts';
import { planRestore } from './restore-plan.ts';

export interface ReplicaLocation {
  readonly store: ObjectStore;
  readonly prefix: string;
  readonly tenant: string;
}

/** Deletes run this many at a time: enough to be quick, few enough not to be throttled. */
const DELETE_CONCURRENCY = 16;

/**
 * The times point-in-time restore can reach: from the oldest snapshot still held to the newest commit a restore
 * of the latest state applies. Null when the tenant has nothing in the bucket.
 */
export async function restoreWindow(options: ReplicaLocation): Promise<{ earliest: number; latest: number } | null> {
  const generations = await readHistory(options.store, tenantRoot(options.prefix, options.tenant));
  const plan = planRestore(generations);
  if (!plan) return null;
  const earliest = generations.reduce((min, g) => g.snapshots.reduce((m, s) => Math.min(m, s.time), min), Infinity);
  return { earliest, latest: plan.reaches };
}

/** Deletes every object of the tenant (also ones this code does not recognise: the prefix is the tenant's). */
export async function deleteReplica(options: ReplicaLocation): Promise<void> {
  const keys: string[] = [];
  for await (const { key } of listAll(options.store, tenantRoot(options.prefix, options.tenant))) keys.push(key);
  await deleteKeys(options.store, keys);
}

/**
 * Drops what is older than `retentionMs`: snapshots taken before the cutoff, the segments only they could
 * replay, and generations left without a snapshot. The snapshot a restore of the latest state starts from is
 * always kept, with its segments. Deletes oldest first, so a prune cut short leaves a restorable replica.
 */
export async function pruneReplica(options: ReplicaLocation & { retentionMs: number; now?: number }): Promise<void> {
  const generations = await readHistory(options.store, tenantRoot(options.prefix, options.tenant));
  const latest = planRestore(generations);
  const cutoff = (options.now ?? Date.now()) - options.retentionMs;
  const doomed: string[] = [];
  for (const generation of generations) doomed.push(...prunable(generation, cutoff, latest?.snapshot.key));
  await deleteKeys(options.store, doomed);
}

function prunable(generation: Generation, cutoff: number, keep: string | undefined): string[] {
  const kept = generation.snapshots.filter((s) => s.time >= cutoff || s.key === keep);
  const first = kept[0];
  // No snapshot left: nothing of this generation can be restored, segments included. Snapshots go first, so a
  // half-done deletion leaves segments without a base, which no restore chooses and the next prune removes.
  if (!first) return [...generation.snapshots.map((s) => s.key), ...generation.segments.map((s) => s.key)];
  return [...generation.snapshots.filter((s) => s.seq < first.seq).map((s) => s.key), ...generation.segments.filter((s) => s.seq < first.seq).map((s) => s.key)];
}

async function deleteKeys(store: ObjectStore, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += DELETE_CONCURRENCY) {
    await Promise.all(keys.slice(i, i + DELETE_CONCURRENCY).map((key) => store.delete(key)));
  }
}
