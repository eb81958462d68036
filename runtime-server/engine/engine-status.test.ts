import { describe, expect, it } from 'vitest';
import { engineStatus, type ShardView } from './engine-status.ts';

const shard = (index: number, over: Partial<ShardView> = {}): ShardView => ({
  index,
  healthy: true,
  ready: true,
  current: { id: index + 1, proc: { pid: 100 + index } },
  restarts: 0,
  recycles: { isolates: 0, memory: 0 },
  loaded: 0,
  ...over,
});

describe('engineStatus', () => {
  it('counts apps per shard and sums restarts and isolates', () => {
    const status = engineStatus([shard(0, { restarts: 2, loaded: 3 }), shard(1, { restarts: 1, recycles: { isolates: 1, memory: 2 }, loaded: 4 })], [0, 1, 1], { workerdStarts: 6, loadChecks: 2 });
    expect(status).toEqual({
      ready: true,
      restarts: 3,
      workerdStarts: 6,
      apps: 3,
      loadedWorkers: 7,
      loadChecks: 2,
      shards: [
        { index: 0, ready: true, generation: 1, pid: 100, restarts: 2, recycles: { isolates: 0, memory: 0 }, loadedWorkers: 3, apps: 1 },
        { index: 1, ready: true, generation: 2, pid: 101, restarts: 1, recycles: { isolates: 1, memory: 2 }, loadedWorkers: 4, apps: 2 },
      ],
    });
  });

  it.each<[string, ShardView[], boolean]>([
    ['every shard ready', [shard(0), shard(1)], true],
    ['one shard not ready', [shard(0), shard(1, { ready: false })], false],
    ['no shard (not started)', [], false],
  ])('ready: %s → %s', (_name, shards, ready) => {
    expect(engineStatus(shards, [], { workerdStarts: 0, loadChecks: 0 }).ready).toBe(ready);
  });

  it('shows a shard without a workerd as generation 0, pid 0, and its own health', () => {
    expect(engineStatus([shard(0, { current: undefined, healthy: false, ready: true })], [], { workerdStarts: 1, loadChecks: 0 }).shards[0]).toMatchObject({ generation: 0, pid: 0, ready: false });
  });
});
