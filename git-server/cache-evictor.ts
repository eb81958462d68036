// Keeps the cache's disk below `cache.disk_high_watermark`: every `cache.evict_interval` it measures the file
// system holding `cache.dir` and, above the mark, deletes the least recently used repository copies (the
// bucket holds everything; a copy is fetched again on its next use). Copies a request is using right now, or
// used within the last minute, are kept.
import { statfs } from 'node:fs/promises';
import { Gauge, type Registry } from 'prom-client';
import type { RepoCache } from './plumbing/repo-cache.ts';

const RECENTLY_USED_MS = 60_000;

export interface CacheEvictorOptions {
  readonly cache: RepoCache;
  readonly highWatermark: number;
  readonly intervalMs: number;
  readonly registry: Registry;
  readonly log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** The disk's used fraction (tests); default from statfs of the cache directory. */
  readonly usedFraction?: () => Promise<number>;
  readonly now?: () => number;
}

export class CacheEvictor {
  readonly #options: CacheEvictorOptions;
  readonly #gauge: Gauge;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: CacheEvictorOptions) {
    this.#options = options;
    this.#gauge = new Gauge({ name: 'service_cache_disk_used_fraction', help: 'Used fraction of the disk holding the cache.', registers: [options.registry] });
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.runOnce().catch((error: unknown) => this.#options.log.warn({ err: error }, 'cache eviction failed'));
    }, this.#options.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** One pass; answers the repositories evicted. */
  async runOnce(): Promise<string[]> {
    const { cache, highWatermark } = this.#options;
    const measure = this.#options.usedFraction ?? (() => diskUsedFraction(cache.root));
    const now = (this.#options.now ?? Date.now)();
    let used = await measure();
    this.#gauge.set(used);
    const evicted: string[] = [];
    if (used <= highWatermark) return evicted;
    const candidates = (await cache.cached()).filter((c) => now - c.lastUsedMs > RECENTLY_USED_MS).sort((a, b) => a.lastUsedMs - b.lastUsedMs);
    for (const { repo } of candidates) {
      if (!(await cache.evictIfIdle(repo))) continue;
      evicted.push(repo);
      used = await measure();
      this.#gauge.set(used);
      if (used <= highWatermark) break;
    }
    this.#options.log.info({ evicted: evicted.length, usedFraction: used }, 'cache eviction');
    return evicted;
  }
}

async function diskUsedFraction(dir: string): Promise<number> {
  const fs = await statfs(dir);
  return fs.blocks === 0 ? 0 : 1 - fs.bavail / fs.blocks;
}
