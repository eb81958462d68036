import { describe, expect, it } from 'vitest';
import type { RuntimeAppReport } from '../../../../src/runtime-contract/report.ts';
import { intervalCounts, judge, runIntervalCounts, runTotals, totals, type BuildCounts } from './analysis.ts';
import { parseDuration } from './duration.ts';

const report = (release: string, stable: [number, number], canary: [number, number]): RuntimeAppReport => ({
  namespace: 'p',
  app: 'a',
  hosts: [],
  rollout: { release, weight: 10, stable: { requests: stable[0], errors: stable[1] }, canary: { requests: canary[0], errors: canary[1] } },
});
const counts = (stable: [number, number], canary: [number, number]): BuildCounts => ({ stable: { requests: stable[0], errors: stable[1] }, canary: { requests: canary[0], errors: canary[1] } });

describe('rollout analysis', () => {
  it('sums the replicas that split for the release, not the others nor those that have not acted', () => {
    expect(totals([report('r2', [10, 1], [5, 2]), report('r2', [20, 0], [7, 1]), report('r1', [99, 99], [99, 99]), undefined], 'r2')).toEqual(counts([30, 1], [12, 3]));
  });

  it('keeps each run of a replica’s split apart, and takes each from its own baseline', () => {
    const ran = (run: string | undefined, canary: [number, number]) => ({ ...report('r2', [0, 0], canary), rollout: { ...report('r2', [0, 0], canary).rollout!, ...(run ? { run } : {}) } });
    const runs = runTotals([ran('a1', [10, 1]), ran('b1', [20, 2]), ran(undefined, [5, 0]), ran(undefined, [6, 1])], 'r2');
    expect(runs).toEqual(
      new Map([
        ['a1', counts([0, 0], [10, 1])],
        ['b1', counts([0, 0], [20, 2])],
        ['', counts([0, 0], [11, 1])],
      ]),
    );
    // a1 gone (its replica stopped), a2 new (counted whole), b1 from its baseline.
    const now = new Map([
      ['a2', counts([0, 0], [4, 0])],
      ['b1', counts([0, 0], [25, 3])],
    ]);
    expect(runIntervalCounts(now, { a1: counts([0, 0], [10, 1]), b1: counts([0, 0], [20, 2]) })).toEqual(counts([0, 0], [9, 1]));
  });

  it.each<[string, BuildCounts, BuildCounts, BuildCounts]>([
    ['takes the baseline off', counts([30, 1], [12, 3]), counts([10, 0], [2, 1]), counts([20, 1], [10, 2])],
    ['a build whose requests fell (a replica restarted) counts its totals', counts([30, 1], [5, 1]), counts([10, 0], [8, 0]), counts([20, 1], [5, 1])],
    ['a build whose errors fell counts its totals', counts([30, 0], [12, 3]), counts([10, 1], [2, 1]), counts([30, 0], [10, 2])],
  ])('%s', (_name, now, baseline, expected) => {
    expect(intervalCounts(now, baseline)).toEqual(expected);
  });

  it.each<[string, BuildCounts, Parameters<typeof judge>[1], string]>([
    ['too few canary requests', counts([100, 50], [9, 9]), { minRequests: 10, maxErrorPercent: 5 }, 'inconclusive'],
    ['at the error limit', counts([0, 0], [100, 5]), { minRequests: 10, maxErrorPercent: 5 }, 'passed'],
    ['above the error limit', counts([0, 0], [50, 41]), { minRequests: 10, maxErrorPercent: 5 }, 'failed'],
    ['above the stable build by more than allowed', counts([100, 10], [100, 21]), { minRequests: 10, maxPercentAboveStable: 10 }, 'failed'],
    ['above the stable build by the allowed points', counts([100, 10], [100, 20]), { minRequests: 10, maxPercentAboveStable: 10 }, 'passed'],
    ['no stable requests: only the absolute limit judges', counts([0, 0], [100, 50]), { minRequests: 10, maxPercentAboveStable: 10 }, 'passed'],
  ])('%s', (_name, interval, policy, verdict) => {
    expect(judge(interval, policy, 'b2').kind).toBe(verdict);
  });

  it('names the figures of a failure', () => {
    expect(judge(counts([0, 0], [50, 41]), { minRequests: 10, maxErrorPercent: 5 }, 'b2')).toEqual({ kind: 'failed', why: '41 of 50 requests of build b2 failed (82 %), above the 5 % allowed' });
    expect(judge(counts([100, 10], [100, 21]), { minRequests: 10, maxPercentAboveStable: 10 }, 'b2')).toMatchObject({
      why: expect.stringContaining("11 points above the stable build's 10 % (10 of 100)"),
    });
  });

  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1h2m3s', 3_723_000],
    ['', undefined],
    ['5x', undefined],
    ['m', undefined],
  ])('parses the duration %j', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
});
