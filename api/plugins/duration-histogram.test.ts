import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { DurationHistogram } from './duration-histogram.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60];
const HELP = 'Time from a request to the end of its response';

/** The same observations into prom-client's Histogram and into ours, each in a registry of its own. */
function both(observations: [method: string, route: string, status: number, seconds: number][]) {
  const reference = new Registry();
  const ours = new Registry();
  const histogram = new Histogram({ name: 'd_seconds', help: HELP, labelNames: ['method', 'route', 'status_class'], buckets: BUCKETS, registers: [reference] });
  const fast = new DurationHistogram({ name: 'd_seconds', help: HELP, buckets: BUCKETS, registers: [ours] });
  for (const [method, route, status, seconds] of observations) {
    histogram.observe({ method, route, status_class: `${Math.floor(status / 100)}xx` }, seconds);
    fast.observe(method, route, status, seconds);
  }
  return { reference, ours, fast, histogram };
}

describe('DurationHistogram', () => {
  it("prints what prom-client's Histogram prints for the same observations, in text and as JSON", async () => {
    const observations: [string, string, number, number][] = [];
    // Interleaved series, values on bucket bounds, between them, above the last, and zero.
    const series: [string, string, number][] = [
      ['GET', '/v1/projects', 200],
      ['GET', 'unmatched', 404],
      ['POST', '/v1/projects/:projectId/apps', 201],
      ['GET', '/v1/projects', 429],
      ['DELETE', '/v1/projects/:projectId', 503],
    ];
    const values = [0, 0.005, 0.0051, 0.01, 0.3, 1, 2.6, 60, 61.5, 0.0001234];
    values.forEach((seconds, i) => {
      for (const [k, [method, route, status]] of series.entries()) if ((i + k) % 3 !== 0) observations.push([method, route, status, seconds]);
    });
    const { reference, ours } = both(observations);
    expect(await ours.metrics()).toBe(await reference.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await reference.getMetricsAsJSON());
  });

  it('prints nothing but its help and type before the first observation, and again after a reset', async () => {
    const { reference, ours, fast, histogram } = both([]);
    expect(await ours.metrics()).toBe(await reference.metrics());
    fast.observe('GET', '/x', 200, 0.2);
    histogram.observe({ method: 'GET', route: '/x', status_class: '2xx' }, 0.2);
    ours.resetMetrics();
    reference.resetMetrics();
    expect(await ours.metrics()).toBe(await reference.metrics());
  });

  it('counts each observation once, in the first bucket whose bound it does not exceed', async () => {
    const { ours } = both([
      ['GET', '/x', 200, 0.01],
      ['GET', '/x', 200, 0.011],
      ['GET', '/x', 200, 100],
    ]);
    const text = await ours.metrics();
    expect(text).toContain('d_seconds_bucket{le="0.005",method="GET",route="/x",status_class="2xx"} 0');
    expect(text).toContain('d_seconds_bucket{le="0.01",method="GET",route="/x",status_class="2xx"} 1');
    expect(text).toContain('d_seconds_bucket{le="0.025",method="GET",route="/x",status_class="2xx"} 2');
    expect(text).toContain('d_seconds_bucket{le="60",method="GET",route="/x",status_class="2xx"} 2');
    expect(text).toContain('d_seconds_bucket{le="+Inf",method="GET",route="/x",status_class="2xx"} 3');
    expect(text).toContain('d_seconds_count{method="GET",route="/x",status_class="2xx"} 3');
  });
});
