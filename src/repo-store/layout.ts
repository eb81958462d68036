// Where a repository's state lives in the bucket (docs/repository-storage.md has the whole layout).
import type { RepoPath } from './repo-path.ts';
import { seqKey } from './seq.ts';
import { packObjectName, type PackObject } from './pack-object.ts';

/** `repos/<owner>/`: every repository of one owner, each a prefix of its own under it. */
export function ownerPrefix(owner: string): string {
  return `repos/${owner}/`;
}

/** `repos/<owner>/<repo>/`: everything of one repository, and nothing else, is under it. */
export function repoPrefix(repo: RepoPath): string {
  return `${ownerPrefix(repo.owner)}${repo.name}/`;
}

/** The one mutable object: the head, rewritten only by compare-and-swap. */
export function manifestKey(repo: RepoPath): string {
  return `${repoPrefix(repo)}manifest.json`;
}

/** An immutable log entry. */
export function logKey(repo: RepoPath, seq: number): string {
  return `${repoPrefix(repo)}log/${seqKey(seq)}.json`;
}

/** A pack, addressed by the SHA-256 of its bytes (and its copy token, if it has one). */
export function packKey(repo: RepoPath, pack: PackObject): string {
  return `${repoPrefix(repo)}packs/${packObjectName(pack)}.pack`;
}

/** The pack's `git index-pack` index, published with it so readers need not index it again. */
export function packIndexKey(repo: RepoPath, pack: PackObject): string {
  return `${repoPrefix(repo)}packs/${packObjectName(pack)}.idx`;
}

/** A folded state (refs and live packs) at `seq`, written by maintenance. */
export function checkpointKey(repo: RepoPath, seq: number): string {
  return `${repoPrefix(repo)}checkpoints/${seqKey(seq)}.json`;
}

/** An LFS object, addressed by its SHA-256 oid. */
export function lfsObjectKey(repo: RepoPath, oid: string): string {
  return `${repoPrefix(repo)}lfs/${oid}`;
}

/** The events bridge's durable cursor: the last seq a webhook acknowledged. */
export function eventsCursorKey(repo: RepoPath): string {
  return `${repoPrefix(repo)}events/cursor.json`;
}

/** The receipt of the import that filled the repository (`POST /api/import`), written once after it published. */
export function importReceiptKey(repo: RepoPath): string {
  return `${repoPrefix(repo)}import/receipt.json`;
}

/** Bucket-wide prefix of deletion markers: while one is fresh, the repository cannot be created again. */
export const DELETING_PREFIX = 'deleting/';

/** The deletion marker of one repository, outside its prefix so the sweep leaves it to the last. */
export function deletingKey(repo: RepoPath): string {
  return `${DELETING_PREFIX}${repo.owner}/${repo.name}.json`;
}

/** Bucket-wide prefix of maintenance markers, so one LIST finds every repository with work due. */
export const PENDING_PREFIX = 'pending/';

/** The maintenance marker of one repository. */
export function pendingKey(repo: RepoPath): string {
  return `${PENDING_PREFIX}${repo.owner}/${repo.name}.json`;
}

/** What maintenance last did to the repository (checkpoint, compaction, fsck, gc), for overviews and status. */
export function maintenanceStatusKey(repo: RepoPath): string {
  return `${repoPrefix(repo)}maintenance/status.json`;
}

/** The lease a maintainer holds while it changes the repository's pack set or log (one at a time). */
export function maintenanceLeaseKey(repo: RepoPath): string {
  return `${repoPrefix(repo)}maintenance/lease.json`;
}

/** Bucket-wide prefix of maintainer heartbeats: one object per maintaining host. */
export const MAINTAINERS_PREFIX = 'maintainers/';

/** A maintainer's heartbeat, rewritten every pass. */
export function maintainerKey(host: string): string {
  return `${MAINTAINERS_PREFIX}${host}.json`;
}
