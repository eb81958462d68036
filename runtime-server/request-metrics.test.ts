import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { requestMetrics } from './request-metrics.ts';

// The formatting of counts a dispatcher reports (the counting itself is tested against workerd in
// e2e/runtime-apps.test.ts).
describe('requestMetrics', () => {
  it('prints each app’s status classes, cumulative latency buckets, in-flight and queued requests', async () => {
    const registry = new Registry();
    let reads = 0;
    requestMetrics(registry, {
      latencyBucketsMs: [5, 10, 25],
      status: () => ({ ready: true, restarts: 0, workerdStarts: 1, apps: 1, loadedWorkers: 3, loadChecks: 1, shards: [] }),
      requestStats: async () => {
        reads += 1;
        return new Map([['p1/web', { active: 2, queued: 1, classes: [0, 7, 0, 2, 1], buckets: [6, 3, 0], count: 10, sumMs: 57 }]]);
      },
    });
    const text = await registry.metrics();
    expect(reads).toBe(1); // one read of the dispatchers per scrape
    expect(text).toContain('cloudwright_runtime_requests_total{project="p1",app="web",class="2xx"} 7');
    expect(text).toContain('cloudwright_runtime_requests_total{project="p1",app="web",class="5xx"} 1');
    expect(text).not.toContain('class="1xx"');
    expect(text).toContain('cloudwright_runtime_requests_in_flight{project="p1",app="web"} 2');
    expect(text).toContain('cloudwright_runtime_requests_queued{project="p1",app="web"} 1');
    expect(text).toContain('cloudwright_runtime_isolates_loaded 3');
    expect(text).toContain('# TYPE cloudwright_runtime_request_duration_seconds histogram');
    expect(text).toContain('cloudwright_runtime_request_duration_seconds_bucket{project="p1",app="web",le="0.005"} 6');
    expect(text).toContain('cloudwright_runtime_request_duration_seconds_bucket{project="p1",app="web",le="0.01"} 9');
    expect(text).toContain('cloudwright_runtime_request_duration_seconds_bucket{project="p1",app="web",le="0.025"} 9');
    expect(text).toContain('cloudwright_runtime_request_duration_seconds_bucket{project="p1",app="web",le="+Inf"} 10');
    expect(text).toContain('cloudwright_runtime_request_duration_seconds_sum{project="p1",app="web"} 0.057');
    expect(text).toContain('cloudwright_runtime_request_duration_seconds_count{project="p1",app="web"} 10');
  });

  it('labels the answers an app gave in a rollout with their build; the rest stay unlabelled, so the sums are the totals', async () => {
    const registry = new Registry();
    requestMetrics(registry, {
      latencyBucketsMs: [5, 10, 25],
      status: () => ({ ready: true, restarts: 0, workerdStarts: 1, apps: 1, loadedWorkers: 3, loadChecks: 1, shards: [] }),
      requestStats: async () =>
        new Map([
          [
            'p1/web',
            {
              active: 0,
              queued: 0,
              classes: [0, 10, 0, 0, 3],
              buckets: [13, 0, 0],
              count: 13,
              sumMs: 13,
              builds: { v1: { classes: [0, 4, 0, 0, 0], buckets: [4, 0, 0], count: 4, sumMs: 4 }, v2: { classes: [0, 3, 0, 0, 2], buckets: [5, 0, 0], count: 5, sumMs: 5 } },
            },
          ],
        ]),
    });
    const text = await registry.metrics();
    expect(text).toContain('cloudwright_runtime_requests_total{project="p1",app="web",build="v1",class="2xx"} 4');
    expect(text).toContain('cloudwright_runtime_requests_total{project="p1",app="web",build="v2",class="5xx"} 2');
    expect(text).toContain('cloudwright_runtime_requests_total{project="p1",app="web",class="2xx"} 3');
    expect(text).toContain('cloudwright_runtime_requests_total{project="p1",app="web",class="5xx"} 1');
    expect(text).toContain('cloudwright_runtime_request_duration_seconds_count{project="p1",app="web",build="v2"} 5');
    expect(text).toContain('cloudwright_runtime_request_duration_seconds_count{project="p1",app="web"} 4');
  });
});
