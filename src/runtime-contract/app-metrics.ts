// What a cw-runtime replica answers about an app's requests over time (`GET /apps/{namespace}/{app}/metrics`
// on its status port) and the arithmetic cw-api and the CLI share to merge and read it.

/** Upper bounds (ms) of the dispatcher's latency buckets; a thirteenth bucket holds the slower answers. */
export const LATENCY_BUCKETS_MS: readonly number[] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000];

/** Answers by status class `1xx` … `5xx`. */
export const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** One minute of an app's (or a build's) answers on one replica. */
export interface MinuteCounts {
  /** The minute's start, ms since the epoch (a multiple of 60 000). */
  readonly start: number;
  /** Answers by status class, 1xx … 5xx; their sum is the minute's requests. */
  readonly classes: readonly number[];
  /** Uncaught exceptions of the app (each answered 500, so among the 5xx). */
  readonly exceptions: number;
  /** 503s the runtime gave without calling the app: its queue was full, or it was quarantined. */
  readonly refused: number;
  /** Answers by latency bucket (`LATENCY_BUCKETS_MS`, then one past the last bound); they sum to the requests. */
  readonly buckets: readonly number[];
}

/** A replica's window of one app: `GET /apps/{namespace}/{app}/metrics?since=<ms>`. */
export interface ReplicaAppMetrics {
  /** When this replica's window begins (its start): it knows nothing of earlier minutes. */
  readonly started: number;
  readonly bucketsMs: readonly number[];
  /** Minutes with answers, oldest first (a minute with none is left out), the current one included. */
  readonly minutes: readonly MinuteCounts[];
  /** Per build, the answers the app gave while in a rollout (part of `minutes`). */
  readonly builds: Readonly<Record<string, readonly MinuteCounts[]>>;
}

/** An app's totals over a span on one replica (the apps list's traffic column). */
export interface AppTotals {
  readonly requests: number;
  /** 5xx answers. */
  readonly errors: number;
  readonly buckets: readonly number[];
}

/** A replica's totals of a namespace's apps: `GET /namespaces/{namespace}/app-metrics?since=<ms>`. */
export interface ReplicaNamespaceTotals {
  readonly started: number;
  readonly apps: Readonly<Record<string, AppTotals>>;
}

export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** `a + b`, element by element (the longer's length). */
export function addCounts(a: readonly number[], b: readonly number[]): number[] {
  return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => (a[i] ?? 0) + (b[i] ?? 0));
}

/**
 * The `q` quantile (0 < q ≤ 1) of answers counted in latency `buckets` (upper bounds `boundsMs`, then one past
 * the last): linear inside the bucket the rank falls in, as Prometheus' `histogram_quantile`; an answer past the
 * last bound counts as that bound. `null` with no answers.
 */
export function percentileMs(buckets: readonly number[], q: number, boundsMs: readonly number[] = LATENCY_BUCKETS_MS): number | null {
  const total = sum(buckets);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < buckets.length; i++) {
    const n = buckets[i] ?? 0;
    if (n > 0 && below + n >= rank) {
      const upper = boundsMs[i];
      if (upper === undefined) return boundsMs[boundsMs.length - 1] ?? null;
      const lower = i === 0 ? 0 : (boundsMs[i - 1] ?? 0);
      return lower + ((upper - lower) * (rank - below)) / n;
    }
    below += n;
  }
  return boundsMs[boundsMs.length - 1] ?? null;
}
