// The manifest as this process last saw it, revalidated with a conditional GET: an unchanged head costs one
// request answered 304 and no body; a changed one costs the same request with the new manifest in it. Heads are
// kept up to a size in all (a repository may hold 10,000 refs, a tenant many repositories), one at most an eighth of
// it: one let go, or too heavy to keep, is read again whole on its next use.
import type { ETag, ObjectStore } from '../object-store/object-store.ts';
import { CorruptObjectError, RepoNotFoundError } from './errors.ts';
import { manifestKey } from './layout.ts';
import { decodeManifest, type Manifest } from './manifest.ts';
import type { RepoPath } from './repo-path.ts';
import { Lru, TENANT_ENTRY_SHARE } from './lru.ts';

/** A manifest with the etag it was read or written with: what a compare-and-swap is conditional on. */
export type RepoHead = Manifest & { readonly etag: ETag };

interface Cached {
  readonly head: RepoHead;
  readonly checkedAt: number;
}

/** What the decoded heads of one process may take together, unless told otherwise. */
export const HEAD_CACHE_BYTES = 32 * 1024 * 1024;

/** Weights already counted: a head revalidated unchanged is remembered again every TTL, and counting walks its refs. */
const weights = new WeakMap<RepoHead, number>();

/** About what a decoded head takes in memory: its refs' names and ids as JS strings, in a Map, and its packs. */
export function headWeight(head: RepoHead): number {
  const known = weights.get(head);
  if (known !== undefined) return known;
  let bytes = 512 + head.packs.length * 256;
  for (const [name, oid] of head.refs) bytes += 2 * (name.length + oid.length) + 64;
  weights.set(head, bytes);
  return bytes;
}

export class HeadCache {
  readonly #store: ObjectStore;
  readonly #ttlMs: number;
  readonly #clock: () => number;
  readonly #cache: Lru<Cached>;
  readonly #inflight = new Map<string, Promise<RepoHead>>();

  /** `maxBytes`: what the heads kept may weigh together; `maxEntryBytes`: one of them at most (default an eighth of that). */
  constructor(store: ObjectStore, options: { ttlMs: number; clock: () => number; maxBytes?: number; maxEntryBytes?: number }) {
    this.#store = store;
    this.#ttlMs = options.ttlMs;
    this.#clock = options.clock;
    const maxBytes = options.maxBytes ?? HEAD_CACHE_BYTES;
    this.#cache = new Lru(maxBytes, { maxEntryWeight: options.maxEntryBytes ?? maxBytes * TENANT_ENTRY_SHARE });
  }

  /** What the heads kept weigh together (bytes, by {@link headWeight}). */
  get bytes(): number {
    return this.#cache.weight;
  }

  /**
   * The head. `fresh` always asks the store (one request); otherwise a head checked less than the TTL ago is
   * answered from memory, and concurrent callers share one revalidation. Throws `RepoNotFoundError`.
   */
  async read(repo: RepoPath, fresh = false): Promise<RepoHead> {
    const cached = this.#cache.get(repo.full);
    if (!fresh) {
      if (cached && this.#clock() - cached.checkedAt < this.#ttlMs) return cached.head;
      const pending = this.#inflight.get(repo.full);
      if (pending) return pending;
    }
    const request = this.#revalidate(repo, cached?.head);
    if (fresh) return request;
    this.#inflight.set(repo.full, request);
    try {
      return await request;
    } finally {
      if (this.#inflight.get(repo.full) === request) this.#inflight.delete(repo.full);
    }
  }

  /** The head as last read or written, if that was at most `maxAgeMs` ago; no request. */
  cachedWithin(repo: RepoPath, maxAgeMs: number): RepoHead | undefined {
    const cached = this.#cache.get(repo.full);
    return cached && this.#clock() - cached.checkedAt <= maxAgeMs ? cached.head : undefined;
  }

  /** Records a head this process wrote (the CAS answered its etag): the next read revalidates against it. */
  remember(repo: RepoPath, head: RepoHead): void {
    const current = this.#cache.get(repo.full)?.head;
    // An answer that left the store before ours must not move the cache back.
    if (current && current.repoId === head.repoId && current.seq > head.seq) return;
    this.#cache.set(repo.full, { head, checkedAt: this.#clock() }, headWeight(head));
  }

  forget(repo: RepoPath): void {
    this.#cache.delete(repo.full);
  }

  async #revalidate(repo: RepoPath, known: RepoHead | undefined): Promise<RepoHead> {
    const key = manifestKey(repo);
    const got = await this.#store.get(key, known ? { ifNoneMatch: known.etag } : {});
    if (!got) {
      this.forget(repo);
      throw new RepoNotFoundError(repo.full);
    }
    if (got.kind === 'not-modified' && known) {
      // This process may have written a newer head (its own CAS) while the request was in flight: keep that.
      this.remember(repo, known);
      return this.#cache.get(repo.full)?.head ?? known;
    }
    if (got.kind === 'not-modified') throw new Error(`${key}: not-modified without a cached etag`);
    const head: RepoHead = Object.freeze({ ...decodeManifest(key, got.body), etag: got.etag });
    if (head.repo !== repo.full) throw new CorruptObjectError(key, `describes ${head.repo}`);
    this.remember(repo, head);
    return head;
  }
}
