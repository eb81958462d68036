// The events bridge's metrics: the spec's three, and our count of posts by outcome. The per-repository webhooks'
// bridge has the same four under `events_repository_webhook_*`, labelled by webhook too (`namespace/name`).
import { Counter, Gauge, type Registry } from 'prom-client';

export class EventsMetrics {
  /** `events_bridge_lag_entries{repo}`: the head's seq minus the cursor, after each catch-up. */
  readonly lag: Gauge<string>;
  /** `events_bridge_gap_total`: log entries skipped because retention retired them before delivery. */
  readonly gap: Counter;
  /** `events_bridge_sweep_found_total`: repositories a sweep delivered events for that no wake-up had asked for. */
  readonly sweepFound: Counter;
  /** `events_bridge_deliveries_total{outcome}` (ours): posts by outcome. */
  readonly deliveries: Counter<'outcome'>;

  /** `lane`: `webhook`, the spec's (`events_bridge_*`); `repository_webhook`, the per-repository ones. */
  constructor(registry: Registry, lane: 'webhook' | 'repository_webhook' = 'webhook') {
    const registers = [registry];
    const global = lane === 'webhook';
    const name = (suffix: string) => (global ? `events_bridge_${suffix}` : `events_repository_webhook_${suffix}`);
    const whose = global ? 'the events cursor' : "a repository webhook's cursor";
    this.lag = new Gauge({ name: name('lag_entries'), help: `Log entries between ${whose} and the head, by repository.`, labelNames: global ? ['repo'] : ['repo', 'webhook'], registers });
    this.gap = new Counter({ name: name('gap_total'), help: 'Log entries retired by retention before the bridge delivered them (skipped, never delivered).', registers });
    this.sweepFound = new Counter({ name: name('sweep_found_total'), help: 'Repositories for which a sweep delivered events no wake-up had asked for.', registers });
    this.deliveries = new Counter({
      name: name('deliveries_total'),
      help: 'Webhook posts by outcome: delivered (2xx), rejected (another status), timeout, unreachable, refused_target, aborted.',
      labelNames: ['outcome'],
      registers,
    });
  }
}
