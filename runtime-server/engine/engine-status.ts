import type { RuntimeStatus } from './engine-options.ts';

/** What the status reads of a shard. */
export interface ShardView {
  readonly index: number;
  readonly healthy: boolean;
  readonly ready: boolean;
  readonly current: { readonly id: number; readonly proc: { readonly pid: number } } | undefined;
  readonly restarts: number;
  readonly recycles: { readonly isolates: number; readonly memory: number };
  readonly loaded: number;
}

/**
 * The engine's status: each shard (its workerd, restarts, isolates, the apps it serves: `appShards` holds
 * the shard of each served app) and the sums. Ready when every shard is.
 */
export function engineStatus(shards: readonly ShardView[], appShards: readonly number[], counts: { readonly workerdStarts: number; readonly loadChecks: number }): RuntimeStatus {
  const perShard = new Array<number>(shards.length).fill(0);
  for (const shard of appShards) perShard[shard]! += 1;
  const views = shards.map((shard) => ({
    index: shard.index,
    ready: shard.healthy,
    generation: shard.current?.id ?? 0,
    pid: shard.current?.proc.pid ?? 0,
    restarts: shard.restarts,
    recycles: { ...shard.recycles },
    loadedWorkers: shard.loaded,
    apps: perShard[shard.index] ?? 0,
  }));
  return {
    ready: shards.length > 0 && shards.every((s) => s.ready),
    restarts: views.reduce((sum, s) => sum + s.restarts, 0),
    workerdStarts: counts.workerdStarts,
    apps: appShards.length,
    loadedWorkers: views.reduce((sum, s) => sum + s.loadedWorkers, 0),
    loadChecks: counts.loadChecks,
    shards: views,
  };
}
