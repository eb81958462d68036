import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { lfsObjectKey, manifestKey, parseRepoPath, type RepoHead, type RepoPath } from '../../src/repo-store/index.ts';
import { LFS_TOTAL_TTL_MS, OWNER_TOTAL_TTL_MS, StorageQuota, StorageQuotaError } from './storage-quota.ts';

const repo = parseRepoPath('acme/site');
const head = (packs: { size: number; idxSize: number | null }[]) => ({ packs: packs.map((p, i) => ({ ...p, sha256: String(i).repeat(64), seq: 1 })) }) as unknown as RepoHead;

/**
 * A quota over `objects` whose repository's head is whatever `current.head` is when it is asked, and any other
 * repository's what `others` holds for it (else none).
 */
function quotaOf(objects: MemoryObjectStore, maxBytes: number, now?: () => number, ownerMaxBytes = Number.MAX_SAFE_INTEGER) {
  const current = { head: head([]) };
  const others = new Map<string, RepoHead>();
  const readHead = async (r: RepoPath) => (r.full === repo.full ? current.head : (others.get(r.full) ?? head([])));
  return { quota: new StorageQuota(objects, { repositoryMaxBytes: maxBytes, ownerMaxBytes }, readHead, now), current, others };
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
    ).toEqual({ packs: 1150, lfs: 300, quota: 10_000, owner: { bytes: 1150 + 300 + 5000, quota: Number.MAX_SAFE_INTEGER } });
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

  it("refuses a write that would take its owner's repositories together past the owner's quota; other owners' repositories do not count", async () => {
    const objects = new MemoryObjectStore();
    let now = 0;
    const { quota, current, others } = quotaOf(objects, 10_000, () => now, 2000);
    const other = parseRepoPath('acme/other');
    await objects.put(manifestKey(other), new Uint8Array(1));
    others.set(other.full, head([{ size: 300, idxSize: 0 }]));
    await objects.put(lfsObjectKey(other, 'a'.repeat(64)), new Uint8Array(600));
    await objects.put(lfsObjectKey(parseRepoPath('acme2/big'), 'b'.repeat(64)), new Uint8Array(50_000));
    await objects.put(lfsObjectKey(parseRepoPath('zeta/acme'), 'c'.repeat(64)), new Uint8Array(50_000));

    const first = await quota.reserve(repo, 1000);
    await expect(quota.reserve(repo, 200)).rejects.toThrow(/^The repositories of acme would pass their storage quota of .* together: they store 1\.9 KiB .* this write to acme\/site adds 200 B/);
    // A reservation that stored nothing (an LFS batch's check, a failed write) stops counting when it ends.
    first.release();
    const third = parseRepoPath('acme/third');
    (await quota.reserve(third, 1100)).release();
    // A published one counts for every other repository of the owner until the owner is counted again.
    const again = await quota.reserve(repo, 1000);
    again.published();
    again.release();
    await expect(quota.reserve(third, 200)).rejects.toMatchObject({ status: 507, code: 'storage_quota_exceeded' });
    // The count a minute later reads what was published: the write landed.
    current.head = head([{ size: 1000, idxSize: 0 }]);
    await objects.put(manifestKey(repo), new Uint8Array(1));
    now += OWNER_TOTAL_TTL_MS;
    (await quota.reserve(third, 100)).release();
    await expect(quota.reserve(third, 101)).rejects.toBeInstanceOf(StorageQuotaError);
    expect((await quota.stored(repo, current.head)).owner).toEqual({ bytes: 1900, quota: 2000 });
  });
});
