import { describe, expect, it } from 'vitest';
import { completeTips, MAX_TIP_WALKS } from './connectivity.ts';

/** A walk over `bad` tips' histories: clean unless a group holds one; counts walks and how many ran at once. */
function walker(bad: ReadonlySet<string>) {
  const stats = { walks: 0, atOnce: 0, mostAtOnce: 0 };
  const walk = async (group: readonly string[]) => {
    stats.walks += 1;
    stats.mostAtOnce = Math.max(stats.mostAtOnce, ++stats.atOnce);
    await new Promise((resolve) => setImmediate(resolve));
    stats.atOnce -= 1;
    return !group.some((tip) => bad.has(tip));
  };
  return { walk, stats };
}

const tips = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);

describe('completeTips', () => {
  it('walks once when every history is complete', async () => {
    const { walk, stats } = walker(new Set());
    expect(await completeTips(tips(1000), walk)).toEqual({ complete: new Set(tips(1000)), incomplete: new Set(), undecided: new Set() });
    expect(stats.walks).toBe(1);
  });

  it('finds the few incomplete histories among many by halves, one walk at a time', async () => {
    const all = tips(1000);
    const bad = new Set(['t3', 't500', 't999']);
    const { walk, stats } = walker(bad);
    const result = await completeTips(all, walk);
    expect(result.incomplete).toEqual(bad);
    expect(result.complete.size).toBe(997);
    expect(result.undecided.size).toBe(0);
    expect(stats.walks).toBeLessThanOrEqual(2 * bad.size * Math.ceil(Math.log2(all.length)) + 1);
    expect(stats.mostAtOnce).toBe(1);
  });

  it(`stops at ${MAX_TIP_WALKS} walks however many tips are incomplete, leaving the rest undecided (review-177 F1)`, async () => {
    const all = tips(10_000);
    const { walk, stats } = walker(new Set(all.filter((_, i) => i % 2 === 0)));
    const result = await completeTips(all, walk);
    expect(stats.walks).toBe(MAX_TIP_WALKS);
    expect(stats.mostAtOnce).toBe(1);
    expect(result.complete.size + result.incomplete.size + result.undecided.size).toBe(all.length);
    for (const tip of result.complete) expect(Number(tip.slice(1)) % 2).toBe(1);
    for (const tip of result.incomplete) expect(Number(tip.slice(1)) % 2).toBe(0);
    expect(result.undecided.size).toBeGreaterThan(0);
  });

  it('decides nothing of no tips', async () => {
    const { walk, stats } = walker(new Set());
    expect(await completeTips([], walk)).toEqual({ complete: new Set(), incomplete: new Set(), undecided: new Set() });
    expect(stats.walks).toBe(0);
  });
});
