import { addCounts, LATENCY_BUCKETS_MS, percentileMs, STATUS_CLASSES, sum, type MinuteCounts } from '../../src/runtime-contract/app-metrics.ts';

/** One step of an app's series, as the API answers it. */
export interface MetricsPoint {
  readonly time: string;
  readonly requests: number;
  readonly requests_per_second: number;
  readonly errors: number;
  readonly error_ratio: number | null;
  readonly p50_ms: number | null;
  readonly p95_ms: number | null;
  readonly p99_ms: number | null;
  readonly status: Record<(typeof STATUS_CLASSES)[number], number>;
  readonly exceptions: number;
  readonly refused: number;
}

export interface MetricsTotals {
  readonly requests: number;
  readonly errors: number;
  readonly error_ratio: number | null;
  readonly p50_ms: number | null;
  readonly p95_ms: number | null;
  readonly p99_ms: number | null;
  readonly exceptions: number;
  readonly refused: number;
}

export interface MetricsSeries {
  readonly points: MetricsPoint[];
  readonly totals: MetricsTotals;
}

/** Counts of one step (or a whole span), summed over minutes and replicas. */
interface Sums {
  classes: number[];
  buckets: number[];
  exceptions: number;
  refused: number;
}

const empty = (): Sums => ({ classes: [0, 0, 0, 0, 0], buckets: [], exceptions: 0, refused: 0 });

function add(into: Sums, m: MinuteCounts): void {
  into.classes = addCounts(into.classes, m.classes);
  into.buckets = addCounts(into.buckets, m.buckets);
  into.exceptions += m.exceptions;
  into.refused += m.refused;
}

/** A latency to a tenth of a millisecond (the buckets' interpolation says no more). */
const ms = (value: number | null): number | null => (value === null ? null : Math.round(value * 10) / 10);
const ratio = (errors: number, requests: number): number | null => (requests === 0 ? null : Math.round((errors / requests) * 1e6) / 1e6);

/** Requests, errors (the 5xx) and their ratio, and the percentiles of a sum. */
function figures(s: Sums, bucketsMs: readonly number[]): MetricsTotals {
  const requests = sum(s.classes);
  const errors = s.classes[4] ?? 0;
  return {
    requests,
    errors,
    error_ratio: ratio(errors, requests),
    p50_ms: ms(percentileMs(s.buckets, 0.5, bucketsMs)),
    p95_ms: ms(percentileMs(s.buckets, 0.95, bucketsMs)),
    p99_ms: ms(percentileMs(s.buckets, 0.99, bucketsMs)),
    exceptions: s.exceptions,
    refused: s.refused,
  };
}

/**
 * Merges the minutes of every replica (each list one replica's, any order) into one point per step from
 * `since` (a step boundary) up to `until`: a step sums the minutes that start in it on every replica, and its
 * percentiles come from the summed latency buckets. Steps without answers are zeros with null percentiles.
 */
export function mergeSeries(replicas: ReadonlyArray<readonly MinuteCounts[]>, since: number, until: number, stepMs: number, bucketsMs: readonly number[] = LATENCY_BUCKETS_MS): MetricsSeries {
  const steps = Math.max(1, Math.ceil((until - since) / stepMs));
  const sums = Array.from({ length: steps }, empty);
  const total = empty();
  for (const minutes of replicas) {
    for (const m of minutes) {
      const i = Math.floor((m.start - since) / stepMs);
      const step = sums[i];
      if (!step) continue;
      add(step, m);
      add(total, m);
    }
  }
  const points = sums.map((s, i): MetricsPoint => {
    const f = figures(s, bucketsMs);
    return {
      time: new Date(since + i * stepMs).toISOString().replace('.000Z', 'Z'),
      requests: f.requests,
      requests_per_second: Math.round((f.requests / (stepMs / 1000)) * 1000) / 1000,
      errors: f.errors,
      error_ratio: f.error_ratio,
      p50_ms: f.p50_ms,
      p95_ms: f.p95_ms,
      p99_ms: f.p99_ms,
      status: Object.fromEntries(STATUS_CLASSES.map((c, k) => [c, s.classes[k] ?? 0])) as MetricsPoint['status'],
      exceptions: f.exceptions,
      refused: f.refused,
    };
  });
  return { points, totals: figures(total, bucketsMs) };
}

/** An app's last-hour traffic in the apps list, from its totals on every replica. */
export function trafficOf(totals: ReadonlyArray<{ requests: number; errors: number; buckets: readonly number[] }>): { requests: number; error_ratio: number | null; p95_ms: number | null } {
  const requests = sum(totals.map((t) => t.requests));
  const errors = sum(totals.map((t) => t.errors));
  const buckets = totals.reduce<number[]>((a, t) => addCounts(a, t.buckets), []);
  return { requests, error_ratio: ratio(errors, requests), p95_ms: ms(percentileMs(buckets, 0.95)) };
}
