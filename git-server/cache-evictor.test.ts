import { mkdir, mkdtemp, readdir, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../src/object-store/memory-object-store.ts';
import { RepoCache } from './plumbing/repo-cache.ts';
import { RepoStore } from '../src/repo-store/index.ts';
import { bytesUnder, CacheEvictor } from './cache-evictor.ts';

const silent = { info() {}, warn() {} };
const NOW = Date.parse('2026-11-21T12:00:00Z');

/** A cached copy on disk, last used `ageMs` before NOW. */
async function copy(root: string, repo: string, ageMs: number): Promise<void> {
  const dir = join(root, 'repos', `${repo}.git`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'cloudwright-repo-id'), 'x');
  const when = new Date(NOW - ageMs);
  await utimes(join(dir, 'cloudwright-repo-id'), when, when);
}

describe('CacheEvictor', () => {
  it('above the watermark, deletes least recently used copies until below it, sparing recent ones', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cw-evict-'));
    const cache = new RepoCache({ repos: new RepoStore({ store: new MemoryObjectStore() }), dir: root });
    await copy(root, 'a/old', 3_600_000);
    await copy(root, 'a/older', 7_200_000);
    await copy(root, 'b/recent', 10_000);
    await copy(root, 'b/middle', 600_000);
    const readings = [0.95, 0.92, 0.85];
    const registry = new Registry();
    const evictor = new CacheEvictor({ cache, highWatermark: 0.9, intervalMs: 60_000, registry, log: silent, usedFraction: async () => readings.shift() ?? 0.5, now: () => NOW });

    expect(await evictor.runOnce()).toEqual(['a/older', 'a/old']);
    expect((await readdir(join(root, 'repos', 'b'))).sort()).toEqual(['middle.git', 'recent.git']);
    expect(await registry.getSingleMetricAsString('service_cache_disk_used_fraction')).toContain('0.85');
  });

  it('never deletes a copy a request is using', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cw-evict-'));
    const cache = new RepoCache({ repos: new RepoStore({ store: new MemoryObjectStore() }), dir: root });
    await copy(root, 'a/streaming', 7_200_000);
    await copy(root, 'a/idle', 3_600_000);
    const release = cache.hold('a/streaming');
    const evictor = new CacheEvictor({ cache, highWatermark: 0.9, intervalMs: 60_000, registry: new Registry(), log: silent, usedFraction: async () => 0.95, now: () => NOW });
    expect(await evictor.runOnce()).toEqual(['a/idle']);
    release();
    expect(await evictor.runOnce()).toEqual(['a/streaming']);
  });

  it('below the watermark, deletes nothing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cw-evict-'));
    const cache = new RepoCache({ repos: new RepoStore({ store: new MemoryObjectStore() }), dir: root });
    await copy(root, 'a/old', 3_600_000);
    const evictor = new CacheEvictor({ cache, highWatermark: 0.9, intervalMs: 60_000, registry: new Registry(), log: silent, usedFraction: async () => 0.4, now: () => NOW });
    expect(await evictor.runOnce()).toEqual([]);
    expect(await readdir(join(root, 'repos', 'a'))).toEqual(['old.git']);
  });

  it('with a size for the directory (an emptyDir limit), evicts by the bytes under it though the disk is nearly empty', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cw-evict-'));
    const cache = new RepoCache({ repos: new RepoStore({ store: new MemoryObjectStore() }), dir: root });
    for (const [repo, age] of [
      ['a/old', 7_200_000],
      ['a/newer', 3_600_000],
      ['b/newest', 600_000],
    ] as const) {
      await copy(root, repo, age);
      await writeFile(join(root, 'repos', `${repo}.git`, 'pack'), Buffer.alloc(100_000));
    }
    // Blocks taken, as the kubelet counts an emptyDir: at least the bytes written, a whole block for the small files.
    const taken = await bytesUnder(root);
    expect(taken).toBeGreaterThanOrEqual(300_003);
    expect(taken).toBeLessThan(320_000);
    // Over 300 KB under a 320 KB limit is above a 0.85 mark; one copy fewer is below it.
    // The disk itself nearly empty whatever this machine's is (its fill would otherwise decide: 85 % used evicts all).
    const evictor = new CacheEvictor({ cache, highWatermark: 0.85, maxBytes: 320_000, intervalMs: 60_000, registry: new Registry(), log: silent, diskUsedFraction: async () => 0.1, now: () => NOW });
    expect(await evictor.runOnce()).toEqual(['a/old']);
  });
});
