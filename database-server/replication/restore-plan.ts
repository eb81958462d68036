// Which objects a restore reads: pure, so restore, restoreWindow and prune agree on it.
import type { Generation, SegmentRef, SnapshotRef } from './bucket-layout.ts';

export interface RestorePlan {
  readonly snapshot: SnapshotRef;
  /** The segments after the snapshot, consecutive from its seq, that may hold commits at or before `at`. */
  readonly segments: SegmentRef[];
  /** The time of the last commit the plan reaches (the snapshot's time when there is none); for `at`, an upper bound. */
  readonly reaches: number;
}

/**
 * The newest snapshot taken at or before `at` (any time when undefined), ordered by generation then sequence, and
 * the segments to replay on it. A generation without a snapshot (its process died before the base was uploaded)
 * is never chosen. Replay stops at the first missing sequence number: segments are uploaded strictly in order, so a
 * gap means an object was lost, and the commits after it cannot be applied without the ones it held.
 */
export function planRestore(generations: readonly Generation[], at?: number): RestorePlan | null {
  let snapshot: SnapshotRef | undefined;
  let generation: Generation | undefined;
  for (const g of generations) {
    for (const s of g.snapshots) {
      if (at === undefined || s.time <= at) {
        snapshot = s;
        generation = g;
      }
    }
  }
  if (!snapshot || !generation) return null;
  const segments: SegmentRef[] = [];
  let reaches = snapshot.time;
  let expected = snapshot.seq;
  for (const segment of generation.segments) {
    if (segment.seq < expected) continue;
    if (segment.seq !== expected) break;
    if (at !== undefined && segment.firstTs > at) break;
    segments.push(segment);
    reaches = Math.max(reaches, at === undefined ? segment.lastTs : Math.min(segment.lastTs, at));
    expected++;
  }
  return { snapshot, segments, reaches };
}
