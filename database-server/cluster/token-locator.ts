// Which database a token opens, on every replica: the client's database URL without a trailing slash sends
// `/v1/v2/pipeline`, so the token alone names the database, and a replica that does not own it must still know
// where to send it. The other replicas are asked first (each knows the tokens of the databases it serves); then
// the metadata in the bucket (only the hashes), re-read when a tenant's etag moves.
import { setTimeout } from 'node:timers/promises';
import { inParallel } from '../../src/collections/in-parallel.ts';
import { RecentMap } from '../../src/collections/recent-map.ts';
import { TokenIndex, tokenSha256 } from '../token-index.ts';
import type { TenantMetaStore } from '../tenant-meta.ts';

/** A token nobody knows triggers a refresh at most this often (a stream of bad tokens costs one listing a second). */
const REFRESH_AT_MOST_EVERY_MS = 1000;
/**
 * Metadata objects a refresh reads at once. One at a time, the first refresh of a replica among 1,000 databases
 * kept the first token-routed requests waiting 8 s (`make bench-scale-databases`), and it grows with the count.
 */
const READS_AT_ONCE = 16;
/** Token hashes remembered from the other replicas' answers (those not asked again for longest forgotten past it). */
const MAX_ANSWERS = 100_000;
/**
 * Tokens asked of the other replicas at once. Past it a token goes straight to the bucket's once-a-second path: a
 * flood of made-up tokens must not turn into a flood of requests to every replica's admin API.
 */
const MAX_ASKING = 64;

/** Asks the other replicas which database a token (by its hash) opens; undefined when none serves it. */
export type AskPeers = (sha256: string) => Promise<string | undefined>;

export class TokenLocator {
  readonly #metas: TenantMetaStore;
  readonly #askPeers: AskPeers | undefined;
  readonly #index = new TokenIndex();
  readonly #etags = new Map<string, string>();
  /** What the other replicas answered, by token hash: a token never moves to another database. */
  readonly #answers = new RecentMap<string>(MAX_ANSWERS);
  readonly #asking = new Map<string, Promise<string | undefined>>();
  #refreshing: Promise<void> | undefined;
  #lastRefresh = -Infinity;

  constructor(metas: TenantMetaStore, askPeers?: AskPeers) {
    this.#metas = metas;
    this.#askPeers = askPeers;
  }

  /**
   * The database `token` opens. One not known is asked of the other replicas (a database served elsewhere, created a
   * moment ago or before this process started: at 10,000 databases reading every one's metadata took 28 s), then
   * waits for a refresh of the bucket that began after this call, at most one a second: a stream of bad tokens
   * waits, it does not list the bucket.
   */
  async tenantOf(token: string): Promise<string | undefined> {
    const known = this.#index.find(token, Date.now())?.tenant;
    if (known !== undefined) return known;
    const sha256 = tokenSha256(token);
    const answered = this.#answers.get(sha256) ?? (await this.#ask(sha256));
    if (answered !== undefined) return answered;
    await this.#refreshSince(performance.now());
    return this.#index.find(token, Date.now())?.tenant;
  }

  /** The other replicas' answer for `sha256`; concurrent lookups of one token share one round of questions. */
  #ask(sha256: string): Promise<string | undefined> {
    const askPeers = this.#askPeers;
    if (askPeers === undefined) return Promise.resolve(undefined);
    let asking = this.#asking.get(sha256);
    if (asking === undefined && this.#asking.size >= MAX_ASKING) return Promise.resolve(undefined);
    if (asking === undefined) {
      asking = askPeers(sha256)
        .catch(() => undefined)
        .then((tenant) => {
          if (tenant !== undefined) this.#answers.set(sha256, tenant);
          return tenant;
        })
        .finally(() => this.#asking.delete(sha256));
      this.#asking.set(sha256, asking);
    }
    return asking;
  }

  /**
   * Waits for a refresh that began at or after `since`. One already under way does not do: it may have listed the
   * bucket before the token's database was created, and its answer would call a valid token unknown.
   */
  async #refreshSince(since: number): Promise<void> {
    while (this.#lastRefresh < since) {
      if (this.#refreshing !== undefined) {
        await this.#refreshing.catch(() => {});
        continue;
      }
      const wait = this.#lastRefresh + REFRESH_AT_MOST_EVERY_MS - performance.now();
      if (wait > 0) await setTimeout(wait);
      else void this.refresh().catch(() => {});
    }
    await this.#refreshing?.catch(() => {});
  }

  /** Re-reads the metadata of tenants whose etag moved; forgets deleted ones. Concurrent callers share one. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #refresh(): Promise<void> {
    this.#lastRefresh = performance.now();
    const etags = await this.#metas.etags();
    for (const tenant of this.#etags.keys()) {
      if (etags.has(tenant)) continue;
      this.#etags.delete(tenant);
      this.#index.remove(tenant);
    }
    const changed = [...etags].filter(([tenant, etag]) => this.#etags.get(tenant) !== etag);
    await inParallel(
      changed,
      async ([tenant, etag]) => {
        const meta = await this.#metas.get(tenant);
        if (meta === undefined) return;
        this.#index.set(meta);
        this.#etags.set(tenant, etag);
      },
      READS_AT_ONCE,
    );
  }
}
