// `maintenance/status.json`: what maintenance last did to a repository. Written only by the maintainer holding
// the repository's lease (one writer at a time); read by `GET /api/overview` and the Repository controller.
import type { ObjectStore } from '../object-store/object-store.ts';
import { encodeJson, Fields, schemaFor } from '../repo-store/json-fields.ts';
import { maintenanceStatusKey } from '../repo-store/layout.ts';
import { packObjectJson, readPackObject, type PackObject } from '../repo-store/pack-object.ts';
import type { RepoPath } from '../repo-store/repo-path.ts';
import { seqToString } from '../repo-store/seq.ts';

/** How a maintenance unit ended. `interrupted`: the instance was draining; the next pass does it again. */
export type UnitOutcome = 'succeeded' | 'failed' | 'interrupted';

export interface CheckpointRecord {
  readonly seq: number;
  readonly at: string;
}

export interface CompactionRecord {
  readonly at: string;
  readonly outcome: UnitOutcome;
  readonly packsBefore: number;
  readonly packsAfter: number;
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  /** Why it failed, in a sentence (never a store error's text). */
  readonly message?: string;
}

export interface FsckRecord {
  readonly at: string;
  /** The head seq whose state was checked. */
  readonly seq: number;
  readonly outcome: UnitOutcome;
  /** Objects the refs need that no live pack has (0 when clean). */
  readonly missingObjects: number;
  /** git fsck's problem lines, first few. */
  readonly problems: readonly string[];
}

export interface GcRecord {
  readonly at: string;
  readonly outcome: UnitOutcome;
  readonly deletedObjects: number;
  readonly deletedBytes: number;
}

/**
 * A pack no head lists whose bucket object stays until the grace period has passed: one compaction took out of the
 * live set, or one gc found unlisted but younger than the period (a publish's upload, named by no entry yet or ever).
 */
export interface RetiredPack extends PackObject {
  readonly at: string;
}

export interface MaintenanceStatus {
  /** The incarnation this status is of: a status left by a deleted repository's incarnation is ignored. */
  readonly repoId: string;
  readonly checkpoint: CheckpointRecord | null;
  readonly compaction: CompactionRecord | null;
  readonly fsck: FsckRecord | null;
  readonly gc: GcRecord | null;
  readonly retiredPacks: readonly RetiredPack[];
}

export function emptyStatus(repoId: string): MaintenanceStatus {
  return { repoId, checkpoint: null, compaction: null, fsck: null, gc: null, retiredPacks: [] };
}

const OUTCOMES: readonly string[] = ['succeeded', 'failed', 'interrupted'];

export function encodeStatus(status: MaintenanceStatus): Uint8Array {
  return encodeJson({
    schema: schemaFor(status.retiredPacks),
    repoId: status.repoId,
    checkpoint: status.checkpoint && { seq: seqToString(status.checkpoint.seq), at: status.checkpoint.at },
    compaction: status.compaction,
    fsck: status.fsck && { ...status.fsck, seq: seqToString(status.fsck.seq), problems: status.fsck.problems.map((line) => ({ line })) },
    gc: status.gc,
    retiredPacks: status.retiredPacks.map((r) => ({ ...packObjectJson(r), at: r.at })),
  });
}

export function decodeStatus(key: string, bytes: Uint8Array): MaintenanceStatus {
  const f = Fields.parse(key, bytes);
  const outcome = (r: Fields) => r.string('outcome', (s) => OUTCOMES.includes(s)) as UnitOutcome;
  const count = (r: Fields, name: string) => r.size(name);
  return {
    repoId: f.string('repoId'),
    checkpoint: f.nullable('checkpoint', (r) => ({ seq: r.seq('seq'), at: r.string('at') })),
    compaction: f.nullable('compaction', (r) => {
      const message = r.raw('message');
      return {
        at: r.string('at'),
        outcome: outcome(r),
        packsBefore: count(r, 'packsBefore'),
        packsAfter: count(r, 'packsAfter'),
        bytesBefore: count(r, 'bytesBefore'),
        bytesAfter: count(r, 'bytesAfter'),
        ...(typeof message === 'string' ? { message } : {}),
      };
    }),
    fsck: f.nullable('fsck', (r) => ({
      at: r.string('at'),
      seq: r.seq('seq'),
      outcome: outcome(r),
      missingObjects: count(r, 'missingObjects'),
      problems: r.array('problems', (p) => p.string('line')),
    })),
    gc: f.nullable('gc', (r) => ({ at: r.string('at'), outcome: outcome(r), deletedObjects: count(r, 'deletedObjects'), deletedBytes: count(r, 'deletedBytes') })),
    retiredPacks: f.array('retiredPacks', (r) => ({ ...readPackObject(r), at: r.string('at') })),
  };
}

/** The status of incarnation `repoId`, or an empty one (never maintained, or left by another incarnation). */
export async function readStatus(store: ObjectStore, repo: RepoPath, repoId: string): Promise<MaintenanceStatus> {
  const key = maintenanceStatusKey(repo);
  const got = await store.get(key);
  if (got?.kind !== 'object') return emptyStatus(repoId);
  const status = decodeStatus(key, got.body);
  return status.repoId === repoId ? status : emptyStatus(repoId);
}

/** Writes the status. Only the lease holder calls this, so a plain PUT is the one writer's write. */
export async function writeStatus(store: ObjectStore, repo: RepoPath, status: MaintenanceStatus): Promise<void> {
  await store.put(maintenanceStatusKey(repo), encodeStatus(status), { contentType: 'application/json' });
}
