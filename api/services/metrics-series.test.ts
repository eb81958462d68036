import { describe, expect, it } from 'vitest';
import type { MinuteCounts } from '../../src/runtime-contract/app-metrics.ts';
import { mergeSeries, trafficOf } from './metrics-series.ts';

const T0 = Date.parse('2026-11-29T14:00:00Z');
const MIN = 60_000;

/** A minute of `ok` 2xx in ≤5 ms and `failed` 5xx in 25–50 ms (`exceptions` of them thrown). */
function minute(at: number, ok: number, failed: number, exceptions = 0): MinuteCounts {
  return { start: at, classes: [0, ok, 0, 0, failed], exceptions, refused: 0, buckets: [ok, 0, 0, failed, 0, 0, 0, 0, 0, 0, 0, 0, 0] };
}

describe('mergeSeries', () => {
  it('sums every replica’s minutes per step, with zeros and null percentiles where nothing was answered', () => {
    const a = [minute(T0, 90, 0), minute(T0 + 2 * MIN, 10, 10, 4)];
    const b = [minute(T0 + MIN, 100, 0), minute(T0 + 2 * MIN, 0, 0)];
    const { points, totals } = mergeSeries([a, b], T0, T0 + 6 * MIN, 3 * MIN);
    expect(points).toHaveLength(2);
    expect(points[0]).toEqual({
      time: '2026-11-29T14:00:00Z',
      requests: 210,
      requests_per_second: 1.167,
      errors: 10,
      error_ratio: 0.047619,
      p50_ms: 2.6,
      p95_ms: 5, // rank 199.5 of 200 answers in 0–5 ms
      p99_ms: 44.8, // rank 207.9: 7.9 of the 10 in 25–50 ms
      status: { '1xx': 0, '2xx': 200, '3xx': 0, '4xx': 0, '5xx': 10 },
      exceptions: 4,
      refused: 0,
    });
    expect(points[1]).toMatchObject({ time: '2026-11-29T14:03:00Z', requests: 0, errors: 0, error_ratio: null, p50_ms: null, p95_ms: null, p99_ms: null });
    expect(totals).toMatchObject({ requests: 210, errors: 10, exceptions: 4 });
  });

  it('leaves out minutes outside the span', () => {
    const { totals } = mergeSeries([[minute(T0 - MIN, 5, 0), minute(T0 + 10 * MIN, 5, 0), minute(T0, 1, 0)]], T0, T0 + 5 * MIN, MIN);
    expect(totals.requests).toBe(1);
  });
});

describe('trafficOf', () => {
  it('merges the replicas’ totals of an app into requests, error ratio and p95', () => {
    expect(
      trafficOf([
        { requests: 80, errors: 0, buckets: [80] },
        { requests: 20, errors: 5, buckets: [0, 20] },
      ]),
    ).toEqual({ requests: 100, error_ratio: 0.05, p95_ms: 8.8 });
    expect(trafficOf([])).toEqual({ requests: 0, error_ratio: null, p95_ms: null });
  });
});
