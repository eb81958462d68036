// What the shards' memory bound may be inside the replica's container. Every shard may grow to its bound, so
// shards × bound past the container's limit lets the kernel kill the whole replica (every tenant's apps on it)
// before any shard reaches its own bound and is ended alone.
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { DEFAULT_BACKLOG_TOTAL } from './engine/websocket-backlog.ts';

/** The smallest bound a shard is given, whatever the container: a workerd with its dispatcher and a few apps. */
export const MIN_SHARD_MEMORY_MB = 128;
/** What this process takes besides its V8 heap (code, buffers, the allocator's slack). */
const OWN_OVERHEAD_BYTES = 128 * 1048576;

/**
 * The memory limit of this process's container (cgroup v2 `memory.max`, else v1 `memory.limit_in_bytes`), or
 * undefined when there is none (`max`, a v1 value near 2^63) or it cannot be read (not Linux, no cgroup mounted).
 */
export function containerMemoryLimit(read: (path: string) => string = (path) => readFileSync(path, 'utf8')): number | undefined {
  for (const path of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    let text: string;
    try {
      text = read(path).trim();
    } catch {
      continue;
    }
    const bytes = Number(text);
    return Number.isSafeInteger(bytes) && bytes > 0 && bytes < 2 ** 60 ? bytes : undefined;
  }
  return undefined;
}

/**
 * What cw-runtime keeps for itself out of the container's memory: its V8 heap's bound, the rest of the process, and
 * what apps sent on WebSockets that their clients have not read yet (held outside the heap: `websocket-backlog.ts`).
 */
export function ownReserveBytes(heapLimitBytes = getHeapStatistics().heap_size_limit): number {
  return heapLimitBytes + OWN_OVERHEAD_BYTES + DEFAULT_BACKLOG_TOTAL;
}

/**
 * The bound each shard gets (MiB): the one configured, lowered when the container's limit, less what this process
 * keeps, cannot hold every shard at it; never under {@link MIN_SHARD_MEMORY_MB}. `0` (no bound) stays 0: whoever
 * configured that chose it. Pure.
 */
export function fittedShardMemoryMb(options: { configuredMb: number; shards: number; limitBytes: number | undefined; reserveBytes: number }): number {
  const { configuredMb, shards, limitBytes, reserveBytes } = options;
  if (configuredMb === 0 || limitBytes === undefined) return configuredMb;
  const perShard = Math.floor((limitBytes - reserveBytes) / shards / 1048576);
  return Math.min(configuredMb, Math.max(perShard, MIN_SHARD_MEMORY_MB));
}
