// What one repository may keep in the bucket: its live packs and its LFS objects together, at most
// `quota.repository_max_size`. Without it one tenant's pushes and LFS uploads fill the bucket every tenant shares
// (the fourth hostile run stored 3.5 GB in 75 s). Every write that stores something new (a push's pack, a JSON
// API write's pack, an LFS upload) reserves its bytes here first; a reservation past the quota is refused with
// `StorageQuotaError` (507) before anything reaches the bucket.
import { PublicError } from '../../src/errors.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { Lru } from '../../src/repo-store/lru.ts';
import { repoPrefix, type RepoHead, type RepoPath } from '../../src/repo-store/index.ts';
import { formatBytes } from '../cli/format.ts';

/** A repository's bytes in the bucket, as the quota counts them. */
export interface StoredBytes {
  /** Its live packs with their indexes (the manifest's pack set). */
  readonly packs: number;
  /** Its LFS objects (a listing of its `lfs/` prefix, at most `LFS_TOTAL_TTL_MS` old). */
  readonly lfs: number;
  /** What `quota.repository_max_size` allows. */
  readonly quota: number;
}

/** A write's bytes counted as in flight until it ends: `stored` for LFS bytes that reached the bucket. */
export interface QuotaReservation {
  /** The LFS object is in the bucket: count it in the repository's LFS total from now on. */
  lfsStored(): void;
  /** The write ended (published, stored or failed): stop counting its bytes as in flight. Idempotent. */
  release(): void;
}

/** A write would take a repository past its storage quota. */
export class StorageQuotaError extends PublicError {
  override readonly name = 'StorageQuotaError';
  readonly code = 'storage_quota_exceeded';
  constructor(repo: string, stored: number, adding: number, quota: number) {
    super(
      507,
      `${repo} would pass its storage quota of ${formatBytes(quota)}: it stores ${formatBytes(stored)} (packs and LFS objects, writes in progress included) and this write adds ${formatBytes(adding)}. Objects are kept as long as the repository exists (compaction keeps unreachable ones); an administrator can raise quota.repository_max_size.`,
    );
  }
}

/** How long a repository's LFS total is trusted before it is listed again (other instances store objects too). */
export const LFS_TOTAL_TTL_MS = 60_000;
/** Repositories whose LFS total one instance remembers. */
const LFS_TOTALS_KEPT = 10_000;

/** The git server's count of what each repository stores, and the gate every storing write passes. */
export class StorageQuota {
  readonly maxBytes: number;
  readonly #objects: ObjectStore;
  readonly #readHead: (repo: RepoPath) => Promise<RepoHead>;
  readonly #now: () => number;
  readonly #lfsTotals = new Lru<{ bytes: number; at: number }>(LFS_TOTALS_KEPT);
  /** Bytes of this instance's writes in progress, per repository: counted so parallel writes cannot all fit. */
  readonly #inFlight = new Map<string, number>();
  readonly #listings = new Map<string, Promise<number>>();

  /** `readHead`: the repository's head as the store has it now (a write reserves against the newest, not the one it began with). */
  constructor(objects: ObjectStore, maxBytes: number, readHead: (repo: RepoPath) => Promise<RepoHead>, now: () => number = Date.now) {
    this.#objects = objects;
    this.maxBytes = maxBytes;
    this.#readHead = readHead;
    this.#now = now;
  }

  /** What `repo` stores now (`head` is its current head). */
  async stored(repo: RepoPath, head: RepoHead): Promise<StoredBytes> {
    return { packs: packBytes(head), lfs: await this.#lfsTotal(repo), quota: this.maxBytes };
  }

  /**
   * Counts `bytes` as being written to `repo`; throws `StorageQuotaError` when what it stores (by its newest head:
   * a write published meanwhile counts, as one still in flight does), what is in flight and `bytes` together pass
   * the quota. Release the reservation when the write ends.
   */
  async reserve(repo: RepoPath, bytes: number): Promise<QuotaReservation> {
    const [head, lfs] = await Promise.all([this.#readHead(repo), this.#lfsTotal(repo)]);
    const held = packBytes(head) + lfs + (this.#inFlight.get(repo.full) ?? 0);
    if (held + bytes > this.maxBytes) throw new StorageQuotaError(repo.full, held, bytes, this.maxBytes);
    this.#add(repo.full, bytes);
    let released = false;
    return {
      lfsStored: () => {
        const total = this.#lfsTotals.get(repo.full);
        if (total) this.#lfsTotals.set(repo.full, { bytes: total.bytes + bytes, at: total.at });
      },
      release: () => {
        if (released) return;
        released = true;
        this.#add(repo.full, -bytes);
      },
    };
  }

  #add(repo: string, bytes: number): void {
    const next = (this.#inFlight.get(repo) ?? 0) + bytes;
    if (next > 0) this.#inFlight.set(repo, next);
    else this.#inFlight.delete(repo);
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

/** A head's live packs with their indexes. */
export function packBytes(head: Pick<RepoHead, 'packs'>): number {
  return head.packs.reduce((sum, pack) => sum + pack.size + (pack.idxSize ?? 0), 0);
}
