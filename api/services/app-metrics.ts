import { historyEvents, type DeploymentView, type HistoryEvent } from '../../src/platform/deploy-history.ts';
import type { ReplicaMetrics } from './replica-metrics.ts';
import { mergeSeries, trafficOf, type MetricsSeries } from './metrics-series.ts';
import type { MetricsSpan } from './metrics-span.ts';

/** The API's answer for an app's metrics (`GET …/apps/{app}/metrics`). */
export interface AppMetricsAnswer extends MetricsSeries {
  readonly since: string;
  readonly until: string;
  readonly step_seconds: number;
  readonly replicas: { readonly answered: number; readonly live: number; readonly missing: string[] };
  readonly builds: Record<string, MetricsSeries>;
  readonly events: HistoryEvent[];
}

export interface AppTraffic {
  readonly requests: number;
  readonly error_ratio: number | null;
  readonly p95_ms: number | null;
}

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * Apps' requests, errors and latency over time, merged from every live runtime replica's window: a replica
 * that restarted contributes the minutes since its start, one that does not answer in time is named missing.
 */
export class AppMetrics {
  readonly #replicas: ReplicaMetrics;

  constructor(replicas: ReplicaMetrics) {
    this.#replicas = replicas;
  }

  /** `history`: the app's deploy history, whose activations, rollout steps and aborts in the span become `events`. */
  async series(project: string, app: string, span: MetricsSpan, history: readonly DeploymentView[] = []): Promise<AppMetricsAnswer> {
    const read = await this.#replicas.app(project, app, span.since);
    const { since, until, stepMs } = span;
    const builds: Record<string, MetricsSeries> = {};
    const buildIds = new Set(read.answered.flatMap((a) => Object.keys(a.body.builds)));
    for (const build of [...buildIds].sort()) {
      builds[build] = mergeSeries(
        read.answered.map((a) => a.body.builds[build] ?? []),
        since,
        until,
        stepMs,
      );
    }
    return {
      since: iso(since),
      until: iso(until),
      step_seconds: stepMs / 1000,
      replicas: { answered: read.answered.length, live: read.live, missing: [...read.missing] },
      ...mergeSeries(
        read.answered.map((a) => a.body.minutes),
        since,
        until,
        stepMs,
      ),
      builds,
      events: historyEvents(history, since, until),
    };
  }

  /** Each app's last-hour traffic on the replicas that answered; `undefined` when none did. */
  async lastHour(project: string, now: number): Promise<Map<string, AppTraffic> | undefined> {
    const read = await this.#replicas.project(project, now - HOUR);
    if (read.answered.length === 0) return undefined;
    const apps = new Set(read.answered.flatMap((a) => Object.keys(a.body.apps)));
    const traffic = new Map<string, AppTraffic>();
    for (const app of apps) traffic.set(app, trafficOf(read.answered.flatMap((a) => a.body.apps[app] ?? [])));
    return traffic;
  }
}
