// Where a tenant's replica lives in the bucket, and reading it back into generations:
//
//   <prefix><tenant>/generations/<generation>/snapshots/<seq>-<time>.db.gz
//   <prefix><tenant>/generations/<generation>/segments/<seq>-<first commit time>-<last commit time>.seg.gz
//   <prefix><tenant>/epochs/<epoch>/follows/<generation>/<seq>     (or .../follows/none): see history.ts
//
// A generation id is `<start time>-<random>` (one cw-db, no leases), or `e<epoch>-<start time>-<random>` when it
// was written under a lease (database-server/cluster): times, epochs and sequence numbers are zero-padded decimals,
// so a LIST (ascending key order) gives generations in (epoch, start) order, the unleased ones first, and, inside
// one, snapshots and segments in apply order.
// A snapshot's <seq> is the first segment NOT in it: it holds every segment below <seq> of its generation. The
// times in the keys let a restore choose its snapshot and skip segments without reading them.
import { randomBytes } from 'node:crypto';
import { listAll } from '../../src/object-store/list-all.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';

const TIME_DIGITS = 15;
const SEQ_DIGITS = 10;
const EPOCH_DIGITS = 10;

export interface SnapshotRef {
  readonly key: string;
  readonly generation: string;
  readonly seq: number;
  /** When it was taken: it holds every commit stamped at or before this time. */
  readonly time: number;
}

export interface SegmentRef {
  readonly key: string;
  readonly generation: string;
  readonly seq: number;
  readonly firstTs: number;
  readonly lastTs: number;
}

export interface Generation {
  readonly id: string;
  /** The lease epoch it was written under; 0 for a generation written without a lease. */
  readonly epoch: number;
  /** Ascending by seq. */
  readonly snapshots: SnapshotRef[];
  /** Ascending by seq. */
  readonly segments: SegmentRef[];
}

/** The key prefix of everything a tenant has in the bucket. */
export function tenantRoot(prefix: string, tenant: string): string {
  return `${prefix}${tenant}/`;
}

/** A new generation's id; with `epoch` (a leased tenant), the epoch goes first so it orders generations. */
export function newGenerationId(time: number, epoch?: number): string {
  const id = `${pad(time, TIME_DIGITS)}-${randomBytes(4).toString('hex')}`;
  return epoch === undefined ? id : `e${pad(epoch, EPOCH_DIGITS)}-${id}`;
}

/**
 * The record that the owner of `epoch` restored the tenant from `follows` (a generation and the first segment it
 * did not apply), or from nothing: written before that owner's first generation (history.ts).
 */
export function followsKey(root: string, epoch: number, follows: HistoryPoint | null): string {
  const tail = follows === null ? 'none' : `${follows.generation}/${pad(follows.nextSeq, SEQ_DIGITS)}`;
  return `${root}epochs/${pad(epoch, EPOCH_DIGITS)}/follows/${tail}`;
}

/** A point in a generation's chain: everything below segment `nextSeq` of `generation`. */
export interface HistoryPoint {
  readonly generation: string;
  readonly nextSeq: number;
}

/** An epoch owner's record of where it took the tenant over; `follows` null: the bucket held nothing. */
export interface FollowsMarker {
  readonly epoch: number;
  readonly follows: HistoryPoint | null;
}

export function snapshotKey(root: string, generation: string, seq: number, time: number): string {
  return `${root}generations/${generation}/snapshots/${pad(seq, SEQ_DIGITS)}-${pad(time, TIME_DIGITS)}.db.gz`;
}

export function segmentKey(root: string, generation: string, seq: number, firstTs: number, lastTs: number): string {
  return `${root}generations/${generation}/segments/${pad(seq, SEQ_DIGITS)}-${pad(firstTs, TIME_DIGITS)}-${pad(lastTs, TIME_DIGITS)}.seg.gz`;
}

const GENERATION = '(?:e\\d{10}-)?\\d{15}-[0-9a-f]{8}';
const SNAPSHOT = new RegExp(`^generations/(${GENERATION})/snapshots/(\\d{10})-(\\d{15})\\.db\\.gz$`);
const SEGMENT = new RegExp(`^generations/(${GENERATION})/segments/(\\d{10})-(\\d{15})-(\\d{15})\\.seg\\.gz$`);
const FOLLOWS = new RegExp(`^epochs/(\\d{10})/follows/(?:none|(${GENERATION})/(\\d{10}))$`);

/** What the bucket holds of a tenant: its generations, oldest first, and the epoch owners' takeover records. */
export interface TenantListing {
  readonly generations: Generation[];
  readonly markers: FollowsMarker[];
}

/** Every generation of the tenant under `root` and every takeover record; keys that are not ours are ignored. */
export async function readListing(store: ObjectStore, root: string): Promise<TenantListing> {
  const byId = new Map<string, Generation>();
  const markers: FollowsMarker[] = [];
  const generation = (id: string): Generation => {
    let found = byId.get(id);
    if (!found) byId.set(id, (found = { id, epoch: epochOf(id), snapshots: [], segments: [] }));
    return found;
  };
  for await (const { key } of listAll(store, root)) {
    const rest = key.slice(root.length);
    const follows = FOLLOWS.exec(rest);
    if (follows) {
      const [, epoch = '', id, seq] = follows;
      markers.push({ epoch: Number(epoch), follows: id === undefined ? null : { generation: id, nextSeq: Number(seq) } });
      continue;
    }
    const snapshot = SNAPSHOT.exec(rest);
    if (snapshot) {
      const [, id = '', seq = '', time = ''] = snapshot;
      generation(id).snapshots.push({ key, generation: id, seq: Number(seq), time: Number(time) });
      continue;
    }
    const segment = SEGMENT.exec(rest);
    if (segment) {
      const [, id = '', seq = '', firstTs = '', lastTs = ''] = segment;
      generation(id).segments.push({ key, generation: id, seq: Number(seq), firstTs: Number(firstTs), lastTs: Number(lastTs) });
    }
  }
  // LIST order is key order, which the zero padding makes numeric order; sorting again costs little and states it.
  const generations = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const g of generations) {
    g.snapshots.sort((a, b) => a.seq - b.seq);
    g.segments.sort((a, b) => a.seq - b.seq);
  }
  return { generations, markers };
}

/**
 * The highest lease epoch anything of the tenant under `root` was written under (0: none), from its takeover records
 * and its generations' ids: LISTs of their directories, no object read.
 */
export async function highestEpoch(store: ObjectStore, root: string): Promise<number> {
  let highest = 0;
  for (const [dir, epochIn] of [
    [`${root}epochs/`, Number],
    [`${root}generations/`, epochOf],
  ] as const) {
    let after: string | undefined;
    do {
      const page = await store.listPrefixes(dir, after === undefined ? {} : { after });
      for (const prefix of page.prefixes) highest = Math.max(highest, epochIn(prefix.slice(dir.length, -1)) || 0);
      after = page.next;
    } while (after !== undefined);
  }
  return highest;
}

function epochOf(id: string): number {
  return id.startsWith('e') ? Number(id.slice(1, 1 + EPOCH_DIGITS)) : 0;
}

function pad(value: number, digits: number): string {
  if (!Number.isSafeInteger(value) || value < 0 || String(value).length > digits) throw new Error(`cannot encode ${value} in ${digits} digits`);
  return String(value).padStart(digits, '0');
}
