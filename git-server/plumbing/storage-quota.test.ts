import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { lfsObjectKey, parseRepoPath, type RepoHead } from '../../src/repo-store/index.ts';
import { LFS_TOTAL_TTL_MS, StorageQuota, StorageQuotaError } from './storage-quota.ts';

const repo = parseRepoPath('acme/site');
const head = (packs: { size: number; idxSize: number | null }[]) => ({ packs: packs.map((p, i) => ({ ...p, sha256: String(i).repeat(64), seq: 1 })) }) as unknown as RepoHead;

/** A quota over `objects` whose repository's head is whatever `current.head` is when it is asked. */
function quotaOf(objects: MemoryObjectStore, maxBytes: number, now?: () => number) {
  const current = { head: head([]) };
  return { quota: new StorageQuota(objects, maxBytes, async () => current.head, now), current };
}

describe('StorageQuota', () => {
  it('counts live packs with their indexes and the LFS objects under the repository', async () => {
    const objects = new MemoryObjectStore();
    await objects.put(lfsObjectKey(repo, 'a'.repeat(64)), new Uint8Array(300));
    await objects.put(lfsObjectKey(parseRepoPath('acme/other'), 'b'.repeat(64)), new Uint8Array(5000));
    const { quota } = quotaOf(objects, 10_000);
    expect(
      await quota.stored(
        repo,
        head([
          { size: 1000, idxSize: 100 },
          { size: 50, idxSize: null },
        ]),
      ),
    ).toEqual({ packs: 1150, lfs: 300, quota: 10_000 });
  });

  it('refuses a reservation past the quota, counting writes in flight until they are released', async () => {
    const { quota, current } = quotaOf(new MemoryObjectStore(), 1000);
    const first = await quota.reserve(repo, 600);
    await expect(quota.reserve(repo, 600)).rejects.toBeInstanceOf(StorageQuotaError);
    first.release();
    first.release(); // idempotent: a second release frees nothing more
    const second = await quota.reserve(repo, 600);
    await expect(quota.reserve(repo, 401)).rejects.toThrow(/acme\/site would pass its storage quota of 1000 B: it stores 600 B .* adds 401 B/);
    second.release();
    // A write published meanwhile is in the newest head, however old the head its writer began with.
    current.head = head([{ size: 900, idxSize: 0 }]);
    await expect(quota.reserve(repo, 101)).rejects.toMatchObject({ status: 507, code: 'storage_quota_exceeded' });
  });

  it('adds a stored LFS object to the remembered total, and lists again once the total is a minute old', async () => {
    const objects = new MemoryObjectStore();
    let now = 0;
    const { quota } = quotaOf(objects, 1000, () => now);
    const empty = head([]);
    const upload = await quota.reserve(repo, 400);
    await objects.put(lfsObjectKey(repo, 'c'.repeat(64)), new Uint8Array(400));
    upload.lfsStored();
    upload.release();
    expect((await quota.stored(repo, empty)).lfs).toBe(400);
    // Another instance stored one meanwhile: seen once the remembered total is too old to trust.
    await objects.put(lfsObjectKey(repo, 'd'.repeat(64)), new Uint8Array(500));
    expect((await quota.stored(repo, empty)).lfs).toBe(400);
    now += LFS_TOTAL_TTL_MS;
    expect((await quota.stored(repo, empty)).lfs).toBe(900);
    await expect(quota.reserve(repo, 101)).rejects.toBeInstanceOf(StorageQuotaError);
  });
});
