// Where a tenant's replica lives in the bucket, and reading it back into generations:
//
//   <prefix><tenant>/generations/<generation>/snapshots/<seq>-<time>.db.gz
//   <prefix><tenant>/generations/<generation>/segments/<seq>-<first commit time>-<last commit time>.seg.gz
//
// A generation id is `<start time>-<random>`; times and sequence numbers are zero-padded decimals, so a LIST
// (ascending key order) gives generations in start order and, inside one, snapshots and segments in apply order.
// A snapshot's <seq> is the first segment NOT in it: it holds every segment below <seq> of its generation. The
// times in the keys let a restore choose its snapshot and skip segments without reading them.
import { randomBytes } from 'node:crypto';
import { listAll } from '../../src/object-store/list-all.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';

const TIME_DIGITS = 15;
const SEQ_DIGITS = 10;

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
  /** Ascending by seq. */
  readonly snapshots: SnapshotRef[];
  /** Ascending by seq. */
  readonly segments: SegmentRef[];
}

/** The key prefix of everything a tenant has in the bucket. */
export function tenantRoot(prefix: string, tenant: string): string {
  return `${prefix}${tenant}/`;
}

export function newGenerationId(time: number): string {
  return `${pad(time, TIME_DIGITS)}-${randomBytes(4).toString('hex')}`;
}

export function snapshotKey(root: string, generation: string, seq: number, time: number): string {
  return `${root}generations/${generation}/snapshots/${pad(seq, SEQ_DIGITS)}-${pad(time, TIME_DIGITS)}.db.gz`;
}

export function segmentKey(root: string, generation: string, seq: number, firstTs: number, lastTs: number): string {
  return `${root}generations/${generation}/segments/${pad(seq, SEQ_DIGITS)}-${pad(firstTs, TIME_DIGITS)}-${pad(lastTs, TIME_DIGITS)}.seg.gz`;
}

const SNAPSHOT = /^generations\/(\d{15}-[0-9a-f]{8})\/snapshots\/(\d{10})-(\d{15})\.db\.gz$/;
const SEGMENT = /^generations\/(\d{15}-[0-9a-f]{8})\/segments\/(\d{10})-(\d{15})-(\d{15})\.seg\.gz$/;

/** Every generation of the tenant under `root`, oldest first; keys that are not ours are ignored. */
export async function readGenerations(store: ObjectStore, root: string): Promise<Generation[]> {
  const byId = new Map<string, Generation>();
  const generation = (id: string): Generation => {
    let found = byId.get(id);
    if (!found) byId.set(id, (found = { id, snapshots: [], segments: [] }));
    return found;
  };
  for await (const { key } of listAll(store, root)) {
    const rest = key.slice(root.length);
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
  return generations;
}

function pad(value: number, digits: number): string {
  if (!Number.isSafeInteger(value) || value < 0 || String(value).length > digits) throw new Error(`cannot encode ${value} in ${digits} digits`);
  return String(value).padStart(digits, '0');
}
