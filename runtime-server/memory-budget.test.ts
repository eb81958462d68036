import { describe, expect, it } from 'vitest';
import { containerMemoryLimit, fittedShardMemoryMb, MIN_SHARD_MEMORY_MB, ownReserveBytes } from './memory-budget.ts';

const MiB = 1048576;

describe('containerMemoryLimit', () => {
  const files = (entries: Record<string, string>) => (path: string) => {
    const text = entries[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return text;
  };

  it.each<[string, Record<string, string>, number | undefined]>([
    ['cgroup v2 with a limit', { '/sys/fs/cgroup/memory.max': '2147483648\n' }, 2 * 1024 * MiB],
    ['cgroup v2 without one', { '/sys/fs/cgroup/memory.max': 'max\n' }, undefined],
    ['cgroup v1 with a limit', { '/sys/fs/cgroup/memory/memory.limit_in_bytes': '1073741824\n' }, 1024 * MiB],
    ['cgroup v1 without one (a page short of 2^63)', { '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n' }, undefined],
    ['no cgroup to read', {}, undefined],
  ])('%s', (_name, entries, expected) => {
    expect(containerMemoryLimit(files(entries))).toBe(expected);
  });
});

describe('fittedShardMemoryMb', () => {
  const reserveBytes = ownReserveBytes(512 * MiB); // the chart's nodeHeapMiB: 704 MiB kept (heap, the rest, WebSocket backlogs)

  it('keeps the configured bound when every shard fits in the container at it, or there is no limit', () => {
    expect(fittedShardMemoryMb({ configuredMb: 1536, shards: 2, limitBytes: 8 * 1024 * MiB, reserveBytes })).toBe(1536);
    expect(fittedShardMemoryMb({ configuredMb: 1536, shards: 8, limitBytes: undefined, reserveBytes })).toBe(1536);
  });

  it('lowers it so that every shard at its bound and this process fit the container', () => {
    // The chart's 2Gi on a two-core node: (2048 - 704) / 2.
    expect(fittedShardMemoryMb({ configuredMb: 1536, shards: 2, limitBytes: 2048 * MiB, reserveBytes })).toBe(672);
    // On eight cores: (2048 - 704) / 8.
    expect(fittedShardMemoryMb({ configuredMb: 1536, shards: 8, limitBytes: 2048 * MiB, reserveBytes })).toBe(168);
  });

  it('never goes under the least a shard needs, and leaves no bound as configured', () => {
    expect(fittedShardMemoryMb({ configuredMb: 1536, shards: 64, limitBytes: 2048 * MiB, reserveBytes })).toBe(MIN_SHARD_MEMORY_MB);
    expect(fittedShardMemoryMb({ configuredMb: 0, shards: 8, limitBytes: 2048 * MiB, reserveBytes })).toBe(0);
  });
});
