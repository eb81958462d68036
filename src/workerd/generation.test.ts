import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PreparedBuild } from './build-store.ts';
import { killLeftovers, sameWorkers, startGeneration, workerFingerprint, type LiveApp } from './generation.ts';
import { silentRuntimeLogger } from './log.ts';
import { resolveWorkerdBinary } from './workerd-process.ts';

const build = (buildId: string): PreparedBuild => ({ buildId, digest: '', modules: [], assetConfig: {}, compatibilityDate: '2025-09-01', compatibilityFlags: [] });
const live = (buildId: string, env: Record<string, string> = {}, hostnames: string[] = []): LiveApp => ({
  app: { project: 'p', appId: 'a', buildId, env, hostnames },
  build: build(buildId),
});

describe('sameWorkers', () => {
  it.each([
    ['identical', new Map([['p/a', live('b1', { A: '1', B: '2' })]]), new Map([['p/a', live('b1', { B: '2', A: '1' })]]), true],
    ['only host names and limits differ', new Map([['p/a', live('b1', {}, ['x.test'])]]), new Map([['p/a', live('b1')]]), true],
    ['another build', new Map([['p/a', live('b1')]]), new Map([['p/a', live('b2')]]), false],
    ['another environment value', new Map([['p/a', live('b1', { A: '1' })]]), new Map([['p/a', live('b1', { A: '2' })]]), false],
    [
      'an app more',
      new Map([['p/a', live('b1')]]),
      new Map([
        ['p/a', live('b1')],
        ['p/b', live('b1')],
      ]),
      false,
    ],
  ])('%s → %s', (_name, a, b, same) => {
    expect(sameWorkers(a, b)).toBe(same);
    expect(sameWorkers(b, a)).toBe(same);
  });

  it('env values cannot collide through the fingerprint encoding', () => {
    expect(workerFingerprint(live('b', { A: '1","B' }))).not.toBe(workerFingerprint(live('b', { A: '1', B: '' })));
  });
});

describe('killLeftovers', () => {
  const runDir = mkdtempSync(join(tmpdir(), 'cw-gen-'));
  afterAll(() => rmSync(runDir, { recursive: true, force: true }));

  it('kills the workerd a crashed engine left running, by the pid in its generation directory', { timeout: 30_000 }, async () => {
    const ctx = { binary: resolveWorkerdBinary(), startTimeoutMs: 10_000, log: silentRuntimeLogger };
    const gen = await startGeneration(ctx, 1, join(runDir, 'g1'), new Map());
    expect(gen.proc.running).toBe(true);
    await killLeftovers(runDir);
    await gen.proc.exited;
    expect(gen.proc.running).toBe(false);
  });
});
