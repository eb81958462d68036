import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/log.ts';
import { DEFAULT_ANSWER_LIMITS, DEFAULT_DATABASE_LIMITS } from '../sql/sql-limits.ts';
import { ShardPool } from './shard-pool.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'shard-pool-'));
const pool = new ShardPool({
  shards: 1,
  config: {
    directory,
    manualCheckpoints: true,
    defaultLimits: DEFAULT_DATABASE_LIMITS,
    memoryLimitBytes: 64 * 1024 * 1024,
    answer: DEFAULT_ANSWER_LIMITS,
    maxPipelineAnswerBytes: 16 * 1024 * 1024,
    maxPipelineMs: 10_000,
    contendedStatementMs: 0,
  },
  heapMiB: 128,
  pipelinesPerShard: 4,
  hangMs: 60_000,
  log: silentLogger,
  // No watchdog ping in flight while the test counts the shard's calls.
  pingIntervalMs: 3_600_000,
});

beforeAll(() => pool.start(), 30_000);
afterAll(async () => {
  await pool.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('ShardPool', () => {
  it('a call that cannot be sent to the shard is rejected and not kept waiting for an answer', async () => {
    // Deeper than the V8 serializer of the IPC channel can go: child.send throws before anything is sent.
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const run = pool.run({ tenant: 'deep', stream: 's1', mode: 'read-write', requests: [deep] });
    await expect(run).rejects.toThrow(RangeError);
    expect(pool.state()[0]!.calls).toBe(0);
    // The shard still serves.
    await pool.open('deep', DEFAULT_DATABASE_LIMITS);
    expect(pool.state()[0]!.calls).toBe(0);
  });
});
