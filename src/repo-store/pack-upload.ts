// Writing a pack's objects (`.pack` and its `.idx`) for a publish or a compaction to name.
import { randomBytes } from 'node:crypto';
import type { ObjectStore, PutBody } from '../object-store/object-store.ts';
import { packIndexKey, packKey } from './layout.ts';
import type { PackObject } from './pack-object.ts';
import type { RepoPath } from './repo-path.ts';

/**
 * Writes the pack whose bytes have SHA-256 `sha256`, and its index, and answers where. The content address serves
 * only when both objects are new there. One already there (left by a try that lost, or by a pack nothing names any
 * more) may be on a gc's list of unlisted packs past their grace period, and gc deletes it whatever names it
 * meanwhile; so then both go under a copy's key instead, which no other writer uses and no gc has listed yet (a
 * publish stalled past the grace period is at risk as any unnamed upload is).
 */
export async function uploadPackObjects(store: ObjectStore, repo: RepoPath, sha256: string, body: PutBody, idx: PutBody | undefined): Promise<PackObject> {
  const address = { sha256 };
  if (await putPackObjects(store, repo, address, body, idx, { ifNoneMatch: '*' })) return address;
  const copy = { sha256, copy: randomBytes(8).toString('hex') };
  // Unconditional: the key is this writer's alone, so an object there is its own write met by the store's retry.
  await putPackObjects(store, repo, copy, body, idx, {});
  return copy;
}

/** Puts the pack and its index at `at`; whether both were written (a conditional create may be refused). */
async function putPackObjects(store: ObjectStore, repo: RepoPath, at: PackObject, body: PutBody, idx: PutBody | undefined, condition: { ifNoneMatch?: '*' }): Promise<boolean> {
  const puts = await Promise.all([
    store.put(packKey(repo, at), body, { ...condition, sha256: at.sha256, contentType: 'application/x-git-packed-objects' }),
    idx === undefined ? undefined : store.put(packIndexKey(repo, at), idx, { ...condition, contentType: 'application/octet-stream' }),
  ]);
  return puts.every((put) => put === undefined || put.kind === 'written');
}
