import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/log.ts';
import { MetricsWindow, type AppCumulative } from './metrics-window.ts';
import { MetricsSampler } from './sampler.ts';

/** The engine's two counters as the sampler reads them: the dispatchers' counts and the entry point's refusals. */
function engine() {
  const stats = new Map<string, AppCumulative>();
  const entryRefusals = new Map<string, number>();
  let reads = 0;
  return {
    stats,
    entryRefusals,
    reads: () => reads,
    requestStats: async () => {
      reads += 1;
      return new Map(stats);
    },
  };
}

describe('MetricsSampler', () => {
  it('reads the counts again for each caller (callers waiting meanwhile share one read), so a read sees every earlier answer', async () => {
    const source = engine();
    const window = new MetricsWindow();
    const sampler = new MetricsSampler(source, window, silentLogger);
    source.stats.set('p/web', { classes: [0, 2, 0, 0, 0], buckets: [2], count: 2 });
    await Promise.all([sampler.fresh(), sampler.fresh(), sampler.fresh()]);
    expect(source.reads()).toBe(1);
    source.stats.set('p/web', { classes: [0, 5, 0, 0, 0], buckets: [5], count: 5 });
    await sampler.fresh();
    expect(source.reads()).toBe(2);
    expect(window.app('p/web', 0).minutes.reduce((n, m) => n + (m.classes[1] ?? 0), 0)).toBe(5);
  });

  it('counts the entry point’s refusals as 503s refused in the first latency bucket, apps the dispatchers never saw included', async () => {
    const source = engine();
    const window = new MetricsWindow();
    // The dispatcher's own: a 2xx and a 503 of a full queue.
    source.stats.set('p/web', { classes: [0, 1, 0, 0, 1], buckets: [2], count: 2, refused: 1 });
    source.entryRefusals.set('p/web', 2);
    source.entryRefusals.set('p/held', 3);
    await new MetricsSampler(source, window, silentLogger).fresh();
    expect(window.app('p/web', 0).minutes[0]).toMatchObject({ classes: [0, 1, 0, 0, 3], refused: 3, buckets: [4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] });
    expect(window.app('p/held', 0).minutes[0]).toMatchObject({ classes: [0, 0, 0, 0, 3], refused: 3, buckets: [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] });
  });
});
