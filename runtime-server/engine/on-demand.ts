import { splitKey } from '../../src/kube/types.ts';
import type { RuntimeLogger } from '../../src/runtime-contract/log.ts';
import { assetRulesBytes, DEFAULT_ASSET_RULES_PER_SHARD } from './asset-rules-budget.ts';
import type { Served } from './served.ts';

/** How a replica serves apps on demand (`RuntimeEngineOptions.onDemand`): what it keeps prepared, and for how long a first request waits. */
export interface OnDemandOptions {
  /** Apps kept prepared (build unpacked, in their shard's routing table) at once; past it the least recently used go (default 1000). */
  readonly maxApps?: number;
  /** Bytes of unpacked builds the prepared apps may take together; past it the least recently used go (default 1 GiB). */
  readonly cacheBytes?: number;
  /** How long a first request waits for its app to be prepared before it is answered 503 (default 10 s; the preparation goes on). */
  readonly firstRequestTimeoutMs?: number;
  /**
   * Whether a new build (or a new app) of `key` deployed now is prepared at once rather than on its first request
   * (docs/runtime.md, "Apps served on demand"): cw-runtime says yes for any app but those of its first list not
   * reached yet, so a deploy is checked (a build workerd refuses fails it) and its first request is warm. Default:
   * never.
   */
  readonly eagerBuilds?: (key: string) => boolean;
  /**
   * How long before a background check of a new build (`build-checks.ts`) that failed for a reason that may pass is
   * tried again, doubled each time it fails again up to 10 minutes (default 30 s).
   */
  readonly checkRetryMs?: number;
  /**
   * Whom a project's apps count against when apps are let go (its owner's account: `RuntimeEngineOptions.accountOf`):
   * the share is the account's, so one person's many projects cannot outweigh another's few. Default: the project.
   */
  readonly accountOf?: (project: string) => string;
  /**
   * Bytes of static-asset rules the apps kept in one shard may hold together (`asset-rules-budget.ts`); past it
   * the shard's least recently used apps with rules are let go as for the other bounds, the accounts holding more
   * than their share of it first (default {@link DEFAULT_ASSET_RULES_PER_SHARD}).
   */
  readonly assetRulesPerShard?: number;
  /** The shard of a project's apps (`RuntimeEngine.shardOf`). Default: one shard. */
  readonly shardOf?: (project: string) => number;
}

/**
 * An app kept prepared: when a request last reached it, whether a first request is preparing it now, and whether
 * that preparation is still fetching its build (left out of passes till then: see {@link OnDemand.preparable}).
 */
interface Kept {
  lastUsed: number;
  preparing: boolean;
  fetching?: boolean;
}

/** One prepared app as eviction sees it. */
export interface KeptApp {
  readonly key: string;
  readonly lastUsed: number;
  /** Bytes its unpacked build(s) take; 0 while it is being prepared. */
  readonly bytes: number;
  readonly preparing: boolean;
  /**
   * It serves an earlier deployment because the one deployed cannot be prepared (a build workerd refuses, an
   * artifact not stored): let go, its next request tries the deployed one again before it falls back.
   */
  readonly fallback?: boolean;
}

/**
 * Which apps a replica keeps prepared, in a bounded LRU: the others are known (their hosts route) but have no
 * build on disk and no place in a shard's table until a request asks for them. Concurrent first requests of
 * one app share one preparation.
 */
export class OnDemand {
  readonly maxApps: number;
  readonly cacheBytes: number;
  readonly firstRequestTimeoutMs: number;
  readonly #eagerBuilds: (key: string) => boolean;
  readonly #accountOf: ((project: string) => string) | undefined;
  readonly #assetRulesPerShard: number;
  readonly #shardOf: (project: string) => number;
  readonly #kept = new Map<string, Kept>();
  readonly #first = new Map<string, Promise<void>>();
  /** Requests waiting for a preparation, and who waits for there to be none ({@link whenIdle}). */
  #forRequests = 0;
  #idle: PromiseWithResolvers<void> | undefined;
  readonly #now: () => number;

  constructor(options: OnDemandOptions, now: () => number = Date.now) {
    this.maxApps = Math.max(1, options.maxApps ?? 1000);
    this.cacheBytes = options.cacheBytes ?? 1024 ** 3;
    this.firstRequestTimeoutMs = options.firstRequestTimeoutMs ?? 10_000;
    this.#eagerBuilds = options.eagerBuilds ?? (() => false);
    this.#accountOf = options.accountOf;
    this.#assetRulesPerShard = options.assetRulesPerShard ?? DEFAULT_ASSET_RULES_PER_SHARD;
    this.#shardOf = options.shardOf ?? (() => 0);
    this.#now = now;
  }

  /** The app is to be prepared by the convergence loop. */
  kept(key: string): boolean {
    return this.#kept.has(key);
  }

  get size(): number {
    return this.#kept.size;
  }

  /** The apps kept. */
  keys(): IterableIterator<string> {
    return this.#kept.keys();
  }

  /**
   * The apps kept that a pass may prepare: all but those whose first preparation still fetches their build (it runs
   * its own pass once fetched), so that one tenant's slow or large artifact holds no other app's pass.
   */
  *preparable(): Generator<string> {
    for (const [key, kept] of this.#kept) if (!kept.fetching) yield key;
  }

  /** The first preparation of `key` fetched its build: passes may prepare it now. */
  fetched(key: string): void {
    const kept = this.#kept.get(key);
    if (kept) delete kept.fetching;
  }

  /**
   * A deploy of `key`, `newBuild` when its build (or its new release's) changed or the app is new: a new build is
   * kept from now on while the policy says so; a change of environment, hosts or limits of an app not kept waits
   * for its first request (one rotated token across thousands of idle apps prepares none of them). A fallback
   * given with the deploy does not make it eager: a fresh replica's first list may hold many apps whose newest
   * build every replica refused, and checking them all at start would take the build store's turns from every
   * tenant's first requests.
   */
  deployed(key: string, newBuild: boolean): void {
    const kept = this.#kept.get(key);
    // A new build of one a first preparation is fetching: the deploy's own pass tries it, as for any kept app.
    if (kept && newBuild) delete kept.fetching;
    if (!kept && newBuild && this.#eagerBuilds(key)) this.#kept.set(key, { lastUsed: this.#now(), preparing: false });
  }

  /** A request reached the prepared app (per request: a map write, nothing more). */
  used(key: string): void {
    const kept = this.#kept.get(key);
    if (kept) kept.lastUsed = this.#now();
  }

  /**
   * The first request of `key` on this replica: keeps it and runs `prepare` (the convergence pass that serves
   * it), once for all the requests that arrive meanwhile. A preparation that fails lets the app go again, so
   * the next request tries anew.
   */
  first(key: string, prepare: () => Promise<void>): Promise<void> {
    const pending = this.#first.get(key) ?? this.#prepare(key, prepare, this.#now());
    // Counted while its request waits: one answered 503 after firstRequestTimeoutMs is gone (a hung fetch would
    // otherwise hold every background check for as long as it hangs).
    this.#forRequests += 1;
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      clearTimeout(timer);
      this.#forRequests -= 1;
      if (this.#forRequests === 0) {
        this.#idle?.resolve();
        this.#idle = undefined;
      }
    };
    const timer = setTimeout(done, this.firstRequestTimeoutMs);
    timer.unref();
    void pending.catch(() => undefined).finally(done);
    return pending;
  }

  /**
   * Prepares `key` with no request waiting (a build checked in the background, `build-checks.ts`): as a first
   * request would, but as if never used, so it is the first let go past the bounds unless a request reaches it
   * meanwhile. One kept already (its deployment failed for now, and it serves its fallback) is prepared again,
   * keeping its last use; one a request is preparing is left to that preparation.
   */
  check(key: string, prepare: () => Promise<void>): Promise<void> {
    // Kept: marked preparing all the same, so its own pass does not let it go.
    return this.#first.get(key) ?? this.#prepare(key, prepare, this.#kept.get(key)?.lastUsed ?? 0);
  }

  /** Resolves once no request waits for a preparation (at once when none does); one promise for every caller meanwhile. */
  whenIdle(): Promise<void> {
    if (this.#forRequests === 0) return Promise.resolve();
    this.#idle ??= Promise.withResolvers<void>();
    return this.#idle.promise;
  }

  #prepare(key: string, prepare: () => Promise<void>, lastUsed: number): Promise<void> {
    // One kept already stays in the passes (a pass that left it out would stop serving it).
    const kept: Kept = { lastUsed, preparing: true, ...(this.#kept.has(key) ? {} : { fetching: true }) };
    this.#kept.set(key, kept);
    const pending = prepare()
      .catch((err: unknown) => {
        if (this.#kept.get(key) === kept) this.#kept.delete(key);
        throw err;
      })
      .finally(() => {
        kept.preparing = false;
        delete kept.fetching;
        this.#first.delete(key);
      });
    this.#first.set(key, pending);
    return pending;
  }

  /** The app is no longer to be served at all. */
  forget(key: string): void {
    this.#kept.delete(key);
  }

  /**
   * Lets the least recently used apps go past the bounds, counting a pass's preparations (`next`, what it will
   * serve): they leave `next`, so the pass drops them from their shards' tables and its collection their builds
   * from disk. They route still, and are prepared again on their next request. `fallback` says which serve an
   * earlier deployment than the one deployed ({@link KeptApp.fallback}).
   */
  evictFrom(next: Map<string, Served>, log: RuntimeLogger, fallback: (key: string) => boolean = () => false): string[] {
    const bytesOf = (key: string) => {
      const s = next.get(key);
      return (s?.live.build.unpackedBytes ?? 0) + (s?.canary?.live.build.unpackedBytes ?? 0);
    };
    const apps = this.apps(bytesOf, fallback);
    const out = evictions(apps, this, this.#now(), this.#accountOf);
    out.push(...this.#rulesEvictions(next, apps, new Set(out)));
    if (out.length === 0) return out;
    for (const key of out) {
      this.#kept.delete(key);
      next.delete(key);
    }
    log.info('apps not used lately let go (prepared again on their next request)', { apps: out.length, kept: this.#kept.size });
    return out;
  }

  /**
   * The apps to let go so that each shard's kept apps hold at most {@link OnDemandOptions.assetRulesPerShard} of
   * rules: {@link evictions} over each shard's apps with rules, their rules as their bytes.
   */
  #rulesEvictions(next: Map<string, Served>, apps: readonly KeptApp[], out: ReadonlySet<string>): string[] {
    const rulesOf = (key: string) => assetRulesBytes(next.get(key)?.live.build) + assetRulesBytes(next.get(key)?.canary?.live.build);
    const byShard = new Map<number, KeptApp[]>();
    for (const app of apps) {
      const bytes = out.has(app.key) ? 0 : rulesOf(app.key);
      if (bytes === 0) continue;
      const shard = this.#shardOf(splitKey(app.key).namespace);
      const inShard = byShard.get(shard);
      if (inShard) inShard.push({ ...app, bytes });
      else byShard.set(shard, [{ ...app, bytes }]);
    }
    const bound = { maxApps: Infinity, cacheBytes: this.#assetRulesPerShard };
    return [...byShard.values()].flatMap((inShard) => evictions(inShard, bound, this.#now(), this.#accountOf));
  }

  /** The kept apps with their last use, for {@link evictions}. */
  apps(bytesOf: (key: string) => number, fallback: (key: string) => boolean = () => false): KeptApp[] {
    return [...this.#kept].map(([key, k]) => ({ key, lastUsed: k.lastUsed, bytes: bytesOf(key), preparing: k.preparing, ...(fallback(key) ? { fallback: true } : {}) }));
  }
}

/** How recently an app serving a fallback must have had a request to be let go last: an idle one needs no shelter. */
export const FALLBACK_SHELTER_MS = 10 * 60_000;

/**
 * The apps to let go so that at most `maxApps` are kept and their builds take at most `cacheBytes`: the least
 * recently used first, and those serving a fallback last (their next request would try their failed deployment
 * again first) — those used within {@link FALLBACK_SHELTER_MS} of `now`, the most recently used up to half of each
 * bound, so a tenant deploying broken builds to many apps cannot hold the cache (only requests keep them sheltered,
 * and past that share they go in their turn like any app). Never one being prepared for a waiting request, nor the
 * most recently used (a build larger than the whole bound is still served while it is the one in use).
 *
 * Accounts (`accountOf` a project: its owner's, or the project itself) holding more than their share of either bound
 * (the bound over the accounts with apps kept) lose theirs first, in the same order: one tenant requesting many apps
 * in turn lets its own go, not every other tenant's, whose requests all became cold preparations (13 of 14, found in
 * review), and one person's 50 projects weigh as one. Pure.
 */
export function evictions(
  apps: readonly KeptApp[],
  bounds: { readonly maxApps: number; readonly cacheBytes: number },
  now: number,
  accountOf: (project: string) => string = (project) => project,
): string[] {
  let count = apps.length;
  let bytes = apps.reduce((sum, a) => sum + a.bytes, 0);
  if (count <= bounds.maxApps && bytes <= bounds.cacheBytes) return [];
  const byUse = [...apps].sort((a, b) => a.lastUsed - b.lastUsed || (a.key < b.key ? -1 : 1));
  const newest = byUse.at(-1)?.key;
  const sheltered = shelteredFallbacks(byUse, bounds, now);
  const order = [...byUse.filter((a) => !sheltered.has(a.key)), ...byUse.filter((a) => sheltered.has(a.key))];
  const ownerOf = (key: string) => accountOf(splitKey(key).namespace);
  const held = heldBy(apps, ownerOf);
  const share = { apps: bounds.maxApps / held.size, bytes: bounds.cacheBytes / held.size };
  const overShare = (app: KeptApp) => {
    const h = held.get(ownerOf(app.key))!;
    return h.apps > share.apps || h.bytes > share.bytes;
  };
  const out = new Set<string>();
  for (const pass of [overShare, () => true]) {
    for (const app of order) {
      if (count <= bounds.maxApps && bytes <= bounds.cacheBytes) return [...out];
      if (app.preparing || app.key === newest || out.has(app.key) || !pass(app)) continue;
      out.add(app.key);
      count -= 1;
      bytes -= app.bytes;
      const h = held.get(ownerOf(app.key))!;
      h.apps -= 1;
      h.bytes -= app.bytes;
    }
  }
  return [...out];
}

/** What each owner (`ownerOf` an app key) holds of the bounds. */
function heldBy(apps: readonly KeptApp[], ownerOf: (key: string) => string): Map<string, { apps: number; bytes: number }> {
  const held = new Map<string, { apps: number; bytes: number }>();
  for (const app of apps) {
    const owner = ownerOf(app.key);
    const h = held.get(owner) ?? { apps: 0, bytes: 0 };
    h.apps += 1;
    h.bytes += app.bytes;
    held.set(owner, h);
  }
  return held;
}

/** The apps serving a fallback that are let go last: the most recently used lately, while together within half of each bound. */
function shelteredFallbacks(byUse: readonly KeptApp[], bounds: { readonly maxApps: number; readonly cacheBytes: number }, now: number): Set<string> {
  const sheltered = new Set<string>();
  let bytes = 0;
  for (const app of [...byUse].reverse()) {
    if (now - app.lastUsed > FALLBACK_SHELTER_MS) break;
    if (!app.fallback) continue;
    if (sheltered.size + 1 > bounds.maxApps / 2 || bytes + app.bytes > bounds.cacheBytes / 2) break;
    sheltered.add(app.key);
    bytes += app.bytes;
  }
  return sheltered;
}
