import { describe, expect, it } from 'vitest';
import { engineSettings } from './engine-settings.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';

const base = { artifacts: new MemoryArtifactSource(), dataDir: '/tmp/x', baseDomain: 'apps.test' };

describe('engineSettings', () => {
  it('says what every unset option means', () => {
    expect(engineSettings(base)).toEqual({
      shards: 1,
      cpuLimitMs: 500,
      startupLimitMs: 1000,
      startupBudget: { cpuMsPerMinute: 3000, waitMs: 5000 },
      sustainedWindowMs: 5000,
      intervalMs: 100,
      isolateHeapMb: 128,
      askTheThread: true,
      shardMemoryBytes: 0,
      quarantine: { initialMs: 60_000, maxMs: 3_600_000 },
      probationMs: 60_000,
      probationWaitMs: 5_000,
      probationTurnMs: 2_000,
      logLingerMs: 300_000,
      startTimeoutMs: 30_000,
      drainTimeoutMs: 30_000,
      restartBackoff: { initialMs: 100, maxMs: 10_000 },
      maxLoadedWorkers: 2000,
      memoryRecycle: { bytes: 0, minAgeMs: 30_000 },
      retryAfter: '1',
      listen: { port: 0, host: '127.0.0.1' },
      serving: { baseDomain: 'apps.test' },
    });
  });

  it.each<[string, Parameters<typeof engineSettings>[0]['limits'], number]>([
    ['a fifth of the CPU bound', { cpuLimitMs: 1000 }, 200],
    ['at least 10 ms', { cpuLimitMs: 20 }, 10],
    ['as set', { cpuLimitMs: 1000, intervalMs: 7 }, 7],
  ])('watchdog interval: %s', (_name, limits, intervalMs) => {
    expect(engineSettings({ ...base, limits }).intervalMs).toBe(intervalMs);
  });

  it('takes what is set', () => {
    const s = engineSettings({
      ...base,
      shards: 0,
      limits: { shardMemoryMb: 2 },
      retryAfterSeconds: 5,
      publicScheme: 'http',
      publicPort: 8080,
      defaultMaxConcurrentRequests: 3,
      queue: { depthFactor: 0 },
      listen: { port: 9000 },
    });
    expect(s).toMatchObject({ shards: 1, shardMemoryBytes: 2 * 1048576, retryAfter: '5', listen: { port: 9000, host: '127.0.0.1' } });
    // A fresh workerd at three quarters of the shard's memory bound, unless a recycle point is set.
    expect(s.memoryRecycle).toEqual({ bytes: 1572864, minAgeMs: 30_000 });
    expect(engineSettings({ ...base, limits: { shardMemoryMb: 2, shardRecycleMb: 1, recycleMinAgeMs: 5 } }).memoryRecycle).toEqual({ bytes: 1048576, minAgeMs: 5 });
    expect(s.serving).toEqual({ baseDomain: 'apps.test', publicScheme: 'http', publicPort: 8080, defaultMaxConcurrentRequests: 3, queueDepthFactor: 0 });
  });
});
