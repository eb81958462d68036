// Keeps the cache's disk below `cache.disk_high_watermark`: every `cache.evict_interval` it measures the file
// system holding `cache.dir` and, with `cache.max_size`, the bytes under the directory against it (an emptyDir's
// limit is not its file system's: that is the node's disk, and a pod past the limit is evicted), and above the
// mark deletes the least recently used repository copies (the bucket holds everything; a copy is fetched again on
// its next use). Copies a request is using right now, or used within the last minute, are kept.
import { lstat, opendir, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { Gauge, type Registry } from 'prom-client';
import type { RepoCache } from './plumbing/repo-cache.ts';

const RECENTLY_USED_MS = 60_000;

export interface CacheEvictorOptions {
  readonly cache: RepoCache;
  readonly highWatermark: number;
  /** What the cache directory may hold (an emptyDir's limit); without it, only the disk's used fraction counts. */
  readonly maxBytes?: number;
  readonly intervalMs: number;
  readonly registry: Registry;
  readonly log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** The used fraction (tests); default the larger of the disk's (statfs) and the directory's bytes over `maxBytes`. */
  readonly usedFraction?: () => Promise<number>;
  /** The disk's used fraction alone (tests; default statfs of the cache directory), when `usedFraction` is not given. */
  readonly diskUsedFraction?: () => Promise<number>;
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
    const { cache, highWatermark, maxBytes } = this.#options;
    const now = (this.#options.now ?? Date.now)();
    // The directory is walked once a pass: each eviction takes what it measured of that copy off the total.
    let bytes = maxBytes ? await bytesUnder(cache.root) : 0;
    const disk = this.#options.diskUsedFraction ?? (() => diskUsedFraction(cache.root));
    const measure = this.#options.usedFraction ?? (async () => Math.max(await disk(), maxBytes ? bytes / maxBytes : 0));
    let used = await measure();
    this.#gauge.set(used);
    const evicted: string[] = [];
    if (used <= highWatermark) return evicted;
    const candidates = (await cache.cached()).filter((c) => now - c.lastUsedMs > RECENTLY_USED_MS).sort((a, b) => a.lastUsedMs - b.lastUsedMs);
    for (const { repo } of candidates) {
      const size = maxBytes ? await bytesUnder(cache.dirOf(repo)) : 0;
      if (!(await cache.evictIfIdle(repo))) continue;
      evicted.push(repo);
      bytes = Math.max(0, bytes - size);
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

/**
 * The disk space the files under `dir` take (blocks, as the kubelet counts an emptyDir, so small files count whole
 * blocks). A directory or file that goes while it is walked (a push's quarantine, git's temporary files) counts
 * nothing; the rest of the walk goes on.
 */
export async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  const pending = [dir];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const entries = await opendir(next).catch(() => undefined);
    if (!entries) continue;
    try {
      for await (const entry of entries) {
        const path = join(next, entry.name);
        if (entry.isDirectory()) pending.push(path);
        else if (entry.isFile())
          total += await lstat(path).then(
            (s) => s.blocks * 512,
            () => 0,
          );
      }
    } catch {
      // The directory went while it was read: what was counted of it stays, the rest of it is gone.
    }
  }
  return total;
}
