// Maintenance markers: `pending/<owner>/<repo>.json`, put by a writer whose publish made maintenance due
// (a checkpoint every CHECKPOINT_EVERY entries, a compaction every COMPACT_EVERY live packs) or left a pack in
// the bucket that no log entry names (a push that lost its race: gc must delete it once its grace period ends).
// The maintainer rewrites a marker with `dueAt` while packs no head lists wait out that period. Hints only: a
// lost marker delays maintenance until the next one. Rate: one PUT per CHECKPOINT_EVERY publishes at most, plus
// one per COMPACT_EVERY packs, plus one per lost push.
import { Counter, type Registry } from 'prom-client';
import type { ObjectStore } from '../object-store/object-store.ts';
import { listAll } from '../object-store/list-all.ts';
import { encodeJson, SCHEMA_VERSION } from './json-fields.ts';
import { PENDING_PREFIX, pendingKey } from './layout.ts';
import type { Manifest } from './manifest.ts';
import type { RepoPath } from './repo-path.ts';
import { seqToString } from './seq.ts';

export const CHECKPOINT_EVERY = 64;
export const COMPACT_EVERY = 16;

export type MaintenanceReason = 'checkpoint' | 'compaction' | 'orphaned-pack' | 'retired-packs';

/** Log entries since the manifest's checkpoint: what a checkpoint would fold. */
export function entriesSinceCheckpoint(m: Pick<Manifest, 'seq' | 'checkpoint'>): number {
  return m.seq - (m.checkpoint?.seq ?? 0);
}

/** What the head owes maintenance now: the thresholds the writers mark by, read from the state they reached. */
export function dueNow(m: Pick<Manifest, 'seq' | 'checkpoint' | 'packs'>): { readonly checkpoint: boolean; readonly compaction: boolean } {
  return { checkpoint: entriesSinceCheckpoint(m) >= CHECKPOINT_EVERY, compaction: m.packs.length >= COMPACT_EVERY };
}

/** The maintenance that moving from `before` to `after` made due (each threshold is crossed once). */
export function maintenanceDue(before: Manifest, after: Manifest): MaintenanceReason[] {
  const tail = entriesSinceCheckpoint;
  const reasons: MaintenanceReason[] = [];
  if (Math.floor(tail(after) / CHECKPOINT_EVERY) > Math.floor(tail(before) / CHECKPOINT_EVERY)) reasons.push('checkpoint');
  if (Math.floor(after.packs.length / COMPACT_EVERY) > Math.floor(before.packs.length / COMPACT_EVERY)) reasons.push('compaction');
  return reasons;
}

export interface PendingMarker {
  readonly repo: string;
  readonly key: string;
  /** When the marker was (last) put. */
  readonly markedAt: Date;
}

const failuresByRegistry = new WeakMap<Registry, Counter>();

/** `service_pending_marker_put_failures_total` on `registry`, registered once (so it reads 0 before any failure). */
export function failureCounter(registry: Registry): Counter {
  let counter = failuresByRegistry.get(registry);
  if (!counter) {
    counter = new Counter({
      name: 'service_pending_marker_put_failures_total',
      help: 'Maintenance markers a writer failed to put (maintenance then waits for its sweep)',
      registers: [registry],
    });
    failuresByRegistry.set(registry, counter);
  }
  return counter;
}

/** Puts the marker if `after` made maintenance due. Never throws: a failure is counted and dropped. */
export async function markPending(store: ObjectStore, registry: Registry, repo: RepoPath, before: Manifest, after: Manifest, now: Date): Promise<void> {
  const reasons = maintenanceDue(before, after);
  if (reasons.length === 0) return;
  await putMarker(store, registry, repo, { reasons, seq: after.seq }, now);
}

/**
 * Puts the marker for a pack a publish uploaded and then wrote into no log entry (its updates were refused by the
 * time it got its turn, or it lost every round): only gc deletes it, and gc runs on marked repositories.
 */
export async function markOrphanedPack(store: ObjectStore, registry: Registry, repo: RepoPath, now: Date): Promise<void> {
  await putMarker(store, registry, repo, { reasons: ['orphaned-pack'] }, now);
}

/**
 * Puts the marker with `marker.reasons` added to those of the marker already there (a checkpoint's marker must not
 * drop the orphaned pack another publish marked, which only gc collects), by compare-and-swap on the one read; a
 * due time the maintainer set goes: the repository has work now.
 */
async function putMarker(store: ObjectStore, registry: Registry, repo: RepoPath, marker: { reasons: MaintenanceReason[]; seq?: number }, now: Date): Promise<void> {
  const key = pendingKey(repo);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await store.get(key);
      const before = current?.kind === 'object' ? decodeMarker(current.body).reasons : [];
      const reasons = [...new Set([...before.filter((r) => r !== 'retired-packs'), ...marker.reasons])];
      const body = encodeJson({ schema: SCHEMA_VERSION, repo: repo.full, ...(marker.seq === undefined ? {} : { seq: seqToString(marker.seq) }), reasons, at: now.toISOString() });
      const put = await store.put(key, body, { contentType: 'application/json', ...(current ? { ifMatch: current.etag } : { ifNoneMatch: '*' }) });
      if (put.kind === 'written') return;
    }
    // Writers kept replacing it: one of them marked the repository, which is what matters; this reason may be lost.
    failureCounter(registry).inc();
  } catch {
    failureCounter(registry).inc();
  }
}

/** What a marker asks for: its reasons, and the time before which nothing is due (a marker the maintainer rewrote). */
export interface MarkerRequest {
  readonly reasons: readonly MaintenanceReason[];
  readonly dueAt?: Date;
}

/** Reads a marker's body leniently (a hint: whatever cannot be read asks for nothing in particular). */
export function decodeMarker(body: Uint8Array): MarkerRequest {
  try {
    const value = JSON.parse(Buffer.from(body).toString('utf8')) as { reasons?: unknown; dueAt?: unknown };
    const reasons = Array.isArray(value.reasons) ? (value.reasons.filter((r) => typeof r === 'string') as MaintenanceReason[]) : [];
    const dueAt = typeof value.dueAt === 'string' && !Number.isNaN(Date.parse(value.dueAt)) ? new Date(value.dueAt) : undefined;
    return { reasons, ...(dueAt ? { dueAt } : {}) };
  } catch {
    return { reasons: [] };
  }
}

/** A marker the maintainer puts back for packs no head lists, to come back for them at `dueAt`. */
export function encodeWaitingMarker(repo: RepoPath, dueAt: Date, now: Date): Uint8Array {
  return encodeJson({ schema: SCHEMA_VERSION, repo: repo.full, reasons: ['retired-packs'], at: now.toISOString(), dueAt: dueAt.toISOString() });
}

/** Every marker (for `cw-git wal pending` and the maintainer). A LIST: not for a hot path. */
export async function listPending(store: ObjectStore): Promise<PendingMarker[]> {
  const markers: PendingMarker[] = [];
  for await (const item of listAll(store, PENDING_PREFIX)) {
    const repo = item.key.slice(PENDING_PREFIX.length).replace(/\.json$/, '');
    markers.push({ repo, key: item.key, markedAt: item.lastModified });
  }
  return markers;
}
