// The events bridge's metrics: the spec's three, and our count of posts by outcome.
import { Counter, Gauge, type Registry } from 'prom-client';

export class EventsMetrics {
  /** `events_bridge_lag_entries{repo}`: the head's seq minus the cursor, after each catch-up. */
  readonly lag: Gauge<'repo'>;
  /** `events_bridge_gap_total`: log entries skipped because retention retired them before delivery. */
  readonly gap: Counter;
  /** `events_bridge_sweep_found_total`: repositories a sweep delivered events for that no wake-up had asked for. */
  readonly sweepFound: Counter;
  /** `events_bridge_deliveries_total{outcome}` (ours): posts by outcome. */
  readonly deliveries: Counter<'outcome'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.lag = new Gauge({ name: 'events_bridge_lag_entries', help: 'Log entries between the events cursor and the head, by repository.', labelNames: ['repo'], registers });
    this.gap = new Counter({ name: 'events_bridge_gap_total', help: 'Log entries retired by retention before the bridge delivered them (skipped, never delivered).', registers });
    this.sweepFound = new Counter({ name: 'events_bridge_sweep_found_total', help: 'Repositories for which a sweep delivered events no wake-up had asked for.', registers });
    this.deliveries = new Counter({
      name: 'events_bridge_deliveries_total',
      help: 'Webhook posts by outcome: delivered (2xx), rejected (another status), timeout, unreachable, refused_target, aborted.',
      labelNames: ['outcome'],
      registers,
    });
  }
}
