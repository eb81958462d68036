// What one repository may keep in the bucket: its live packs and its LFS objects together, at most
// `quota.repository_max_size`; and what all repositories of one owner (a project's) may keep together, at most
// `quota.owner_max_size`, since a tenant can make many repositories. Without them one tenant's pushes and LFS
// uploads fill the bucket every tenant shares (the fourth hostile run stored 3.5 GB in 75 s). Every write that
// stores something new (a push's pack, a JSON API write's pack, an LFS upload) reserves its bytes here first; a
// reservation past either quota is refused with `StorageQuotaError` (507) before anything reaches the bucket.
import { PublicError } from '../../src/errors.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { Lru } from '../../src/repo-store/lru.ts';
import { listAllPrefixes } from '../../src/object-store/list-all.ts';
import { StoreUnavailableError } from '../../src/object-store/object-store.ts';
import { ownerPrefix, parseRepoPath, repoPrefix, type RepoHead, type RepoPath } from '../../src/repo-store/index.ts';
import { formatBytes } from '../commands/format.ts';

/** A repository's bytes in the bucket, as the quota counts them. */
export interface StoredBytes {
  /** Its live packs with their indexes (the manifest's pack set). */
  readonly packs: number;
  /** Its LFS objects (a listing of its `lfs/` prefix, at most `LFS_TOTAL_TTL_MS` old). */
  readonly lfs: number;
  /** What `quota.repository_max_size` allows. */
  readonly quota: number;
  /** What the owner's repositories store together (the others as of at most `OWNER_TOTAL_TTL_MS` ago), and may. */
  readonly owner: { readonly bytes: number; readonly quota: number };
}

/** The two quotas. */
export interface StorageLimits {
  /** `quota.repository_max_size`. */
  readonly repositoryMaxBytes: number;
  /** `quota.owner_max_size`. */
  readonly ownerMaxBytes: number;
}

/** A write's bytes counted as in flight until it ends; what it stored counts from then on. */
export interface QuotaReservation {
  /** The LFS object is in the bucket: count it in the repository's LFS total and its owner's from now on. */
  lfsStored(): void;
  /** The pack is in a published head: count it in the owner's total until the owner is counted again. */
  published(): void;
  /** The write ended (published, stored or failed): stop counting its bytes as in flight. Idempotent. */
  release(): void;
}

/** A write would take a repository past its storage quota. */
export class StorageQuotaError extends PublicError {
  override readonly name = 'StorageQuotaError';
  readonly code = 'storage_quota_exceeded';
  constructor(repo: RepoPath, stored: number, adding: number, quota: number, of: 'repository' | 'owner' = 'repository') {
    super(
      507,
      of === 'repository'
        ? `${repo.full} would pass its storage quota of ${formatBytes(quota)}: it stores ${formatBytes(stored)} (packs and LFS objects, writes in progress included) and this write adds ${formatBytes(adding)}. Objects are kept as long as the repository exists (compaction keeps unreachable ones); an administrator can raise quota.repository_max_size.`
        : `The repositories of ${repo.owner} would pass their storage quota of ${formatBytes(quota)} together: they store ${formatBytes(stored)} (packs and LFS objects, writes in progress included) and this write to ${repo.full} adds ${formatBytes(adding)}. Delete a repository of ${repo.owner} to make room; an administrator can raise quota.owner_max_size.`,
    );
  }
}

/** How long a repository's LFS total is trusted before it is listed again (other instances store objects too). */
export const LFS_TOTAL_TTL_MS = 60_000;
/** Repositories whose LFS total one instance remembers. */
const LFS_TOTALS_KEPT = 10_000;
/** How long an owner's total is trusted before its repositories are read again (writes this instance ends are added to it meanwhile). */
export const OWNER_TOTAL_TTL_MS = 60_000;
/** Owners whose total one instance remembers. */
const OWNER_TOTALS_KEPT = 10_000;
/** Repositories of an owner read at once while its total is counted. */
const OWNER_READS_AT_ONCE = 8;

/** What each repository of an owner stored, as of the count that began at `at`. */
interface OwnerCount {
  readonly at: number;
  readonly byRepo: Map<string, number>;
}

/** A write this instance stored, counted for its owner until a count that began after it. */
interface StoredWrite {
  readonly repo: string;
  readonly bytes: number;
  readonly at: number;
}

/** The git server's count of what each repository stores, and the gate every storing write passes. */
export class StorageQuota {
  readonly maxBytes: number;
  readonly ownerMaxBytes: number;
  readonly #objects: ObjectStore;
  readonly #readHead: (repo: RepoPath) => Promise<RepoHead>;
  readonly #now: () => number;
  readonly #lfsTotals = new Lru<{ bytes: number; at: number }>(LFS_TOTALS_KEPT);
  /** Bytes of this instance's writes in progress, per repository: counted so parallel writes cannot all fit. */
  readonly #inFlight = new Map<string, number>();
  readonly #listings = new Map<string, Promise<number>>();
  readonly #ownerCounts = new Lru<OwnerCount>(OWNER_TOTALS_KEPT);
  readonly #counting = new Map<string, Promise<OwnerCount>>();
  /** Bytes of this instance's writes in progress, per owner. */
  readonly #ownerInFlight = new Map<string, number>();
  /** Per owner, what this instance stored since the owner's last count began (or while it ran). */
  readonly #storedSince = new Lru<StoredWrite[]>(OWNER_TOTALS_KEPT);

  /** `readHead`: the repository's head as the store has it now (a write reserves against the newest, not the one it began with). */
  constructor(objects: ObjectStore, limits: StorageLimits, readHead: (repo: RepoPath) => Promise<RepoHead>, now: () => number = Date.now) {
    this.#objects = objects;
    this.maxBytes = limits.repositoryMaxBytes;
    this.ownerMaxBytes = limits.ownerMaxBytes;
    this.#readHead = readHead;
    this.#now = now;
  }

  /** What `repo` stores now (`head` is its current head), and its owner's repositories together. */
  async stored(repo: RepoPath, head: RepoHead): Promise<StoredBytes> {
    const [lfs, count] = await Promise.all([this.#lfsTotal(repo), this.#ownerCount(repo.owner)]);
    const packs = packBytes(head);
    return { packs, lfs, quota: this.maxBytes, owner: { bytes: this.#others(repo, count) + packs + lfs, quota: this.ownerMaxBytes } };
  }

  /**
   * Counts `bytes` as being written to `repo`; throws `StorageQuotaError` when what it stores (by its newest head:
   * a write published meanwhile counts, as one still in flight does), what is in flight and `bytes` together pass
   * the quota. Release the reservation when the write ends.
   */
  async reserve(repo: RepoPath, bytes: number): Promise<QuotaReservation> {
    const [head, lfs, count] = await Promise.all([this.#readHead(repo), this.#lfsTotal(repo), this.#ownerCount(repo.owner)]);
    const own = packBytes(head) + lfs;
    const held = own + (this.#inFlight.get(repo.full) ?? 0);
    if (held + bytes > this.maxBytes) throw new StorageQuotaError(repo, held, bytes, this.maxBytes);
    // The other repositories as last counted (with what this instance stored since), this one as it is now.
    const ownerHeld = this.#others(repo, count) + own + (this.#ownerInFlight.get(repo.owner) ?? 0);
    if (ownerHeld + bytes > this.ownerMaxBytes) throw new StorageQuotaError(repo, ownerHeld, bytes, this.ownerMaxBytes, 'owner');
    add(this.#inFlight, repo.full, bytes);
    add(this.#ownerInFlight, repo.owner, bytes);
    let released = false;
    let stored = false;
    // Only what reached the bucket counts on for the owner (a reservation that was only a check, or a failed
    // write, stops counting when it ends).
    const store = () => {
      if (stored) return;
      stored = true;
      const since = this.#storedSince.get(repo.owner) ?? [];
      since.push({ repo: repo.full, bytes, at: this.#now() });
      this.#storedSince.set(repo.owner, since);
    };
    return {
      lfsStored: () => {
        const total = this.#lfsTotals.get(repo.full);
        if (total) this.#lfsTotals.set(repo.full, { bytes: total.bytes + bytes, at: total.at });
        store();
      },
      published: store,
      release: () => {
        if (released) return;
        released = true;
        add(this.#inFlight, repo.full, -bytes);
        add(this.#ownerInFlight, repo.owner, -bytes);
      },
    };
  }

  /** `repo` and everything it stored are gone (deleted through this instance): its owner has that much room again at once. */
  repositoryDeleted(repo: RepoPath): void {
    this.#lfsTotals.set(repo.full, { bytes: 0, at: this.#now() });
    this.#ownerCounts.get(repo.owner)?.byRepo.delete(repo.full);
    const since = this.#storedSince.get(repo.owner);
    if (since)
      this.#storedSince.set(
        repo.owner,
        since.filter((w) => w.repo !== repo.full),
      );
  }

  /** What the repositories of `repo`'s owner other than `repo` store: as counted, and what this instance stored since. */
  #others(repo: RepoPath, count: OwnerCount): number {
    let bytes = 0;
    for (const [name, counted] of count.byRepo) if (name !== repo.full) bytes += counted;
    for (const write of this.#storedSince.get(repo.owner) ?? []) if (write.repo !== repo.full && write.at >= count.at) bytes += write.bytes;
    return bytes;
  }

  #ownerCount(owner: string): Promise<OwnerCount> {
    const known = this.#ownerCounts.get(owner);
    if (known && this.#now() - known.at < OWNER_TOTAL_TTL_MS) return Promise.resolve(known);
    let counting = this.#counting.get(owner);
    if (!counting) {
      counting = this.#countOwner(owner).finally(() => this.#counting.delete(owner));
      this.#counting.set(owner, counting);
    }
    return counting;
  }

  /**
   * Reads every repository of `owner` in the bucket: its head's packs and its LFS total. A repository whose head
   * cannot be read (being deleted, or damaged) counts its LFS objects alone; the store out of reach fails the count,
   * and the write with it (503, retryable).
   */
  async #countOwner(owner: string): Promise<OwnerCount> {
    const count: OwnerCount = { at: this.#now(), byRepo: new Map() };
    const names: string[] = [];
    const under = ownerPrefix(owner);
    for await (const prefix of listAllPrefixes(this.#objects, under)) names.push(prefix.slice(under.length, -1));
    for (let i = 0; i < names.length; i += OWNER_READS_AT_ONCE) {
      await Promise.all(
        names.slice(i, i + OWNER_READS_AT_ONCE).map(async (name) => {
          const repo = parseRepoPath(`${owner}/${name}`);
          const [head, lfs] = await Promise.all([this.#readHead(repo).catch(unreadableAsEmpty), this.#lfsTotal(repo)]);
          count.byRepo.set(repo.full, packBytes(head) + lfs);
        }),
      );
    }
    this.#ownerCounts.set(owner, count);
    // What was stored before the count began is in it (if it was published); later writes still count on their own.
    const since = this.#storedSince.get(owner)?.filter((w) => w.at >= count.at) ?? [];
    this.#storedSince.set(owner, since);
    return count;
  }

  #lfsTotal(repo: RepoPath): Promise<number> {
    const known = this.#lfsTotals.get(repo.full);
    if (known && this.#now() - known.at < LFS_TOTAL_TTL_MS) return Promise.resolve(known.bytes);
    // One listing at a time per repository: the writes that find the total old share it.
    let listing = this.#listings.get(repo.full);
    if (!listing) {
      listing = this.#listLfs(repo).finally(() => this.#listings.delete(repo.full));
      this.#listings.set(repo.full, listing);
    }
    return listing;
  }

  async #listLfs(repo: RepoPath): Promise<number> {
    const at = this.#now();
    const prefix = `${repoPrefix(repo)}lfs/`;
    let bytes = 0;
    let after: string | undefined;
    do {
      const page = await this.#objects.list(prefix, after === undefined ? {} : { startAfter: after });
      for (const item of page.items) bytes += item.size;
      after = page.next;
    } while (after !== undefined);
    this.#lfsTotals.set(repo.full, { bytes, at });
    return bytes;
  }
}

function add(counts: Map<string, number>, key: string, bytes: number): void {
  const next = (counts.get(key) ?? 0) + bytes;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}

/** A prefix without a readable head (being created or deleted, or damaged) counts no packs; its LFS objects still count. */
function unreadableAsEmpty(err: unknown): Pick<RepoHead, 'packs'> {
  if (err instanceof StoreUnavailableError) throw err;
  return { packs: [] };
}

/** A head's live packs with their indexes. */
export function packBytes(head: Pick<RepoHead, 'packs'>): number {
  return head.packs.reduce((sum, pack) => sum + pack.size + (pack.idxSize ?? 0), 0);
}
