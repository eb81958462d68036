import type { ReplicaAppMetrics, ReplicaNamespaceTotals } from '../../src/runtime-contract/app-metrics.ts';
import type { RuntimeReplicaView } from '../../src/platform/runtime-replicas.ts';

/** How long a replica has to answer a metrics read before it is listed as missing. */
export const REPLICA_METRICS_TIMEOUT_MS = 2000;
/** The apps list waits less: its traffic column is a nicety, the list itself must come quickly. */
const LIST_TIMEOUT_MS = 1000;

/** What the live replicas answered: each answer by replica name, and the names of those that did not. */
export interface ReplicaAnswers<T> {
  readonly answered: ReadonlyArray<{ readonly replica: string; readonly body: T }>;
  readonly live: number;
  readonly missing: readonly string[];
}

/**
 * Reads the apps' metrics windows of every live cw-runtime replica, from their status ports (`statusURL` in
 * their RuntimeReplicas, with the runtime status token), as the logs route does: all at once, each bounded
 * by `timeoutMs`; a replica that fails or is late is reported missing, never waited for longer.
 */
export class ReplicaMetrics {
  readonly #replicas: Pick<RuntimeReplicaView, 'live'>;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;

  constructor(replicas: Pick<RuntimeReplicaView, 'live'>, statusToken?: string, timeoutMs = REPLICA_METRICS_TIMEOUT_MS) {
    this.#replicas = replicas;
    this.#headers = { accept: 'application/json', ...(statusToken ? { authorization: `Bearer ${statusToken}` } : {}) };
    this.#timeoutMs = timeoutMs;
  }

  /** One app's minutes since `since` (ms) on every live replica. */
  app(project: string, app: string, since: number): Promise<ReplicaAnswers<ReplicaAppMetrics>> {
    return this.#read(`/apps/${encodeURIComponent(project)}/${encodeURIComponent(app)}/metrics?since=${since}`);
  }

  /** The totals since `since` (ms) of a project's apps on every live replica. */
  project(project: string, since: number): Promise<ReplicaAnswers<ReplicaNamespaceTotals>> {
    return this.#read(`/namespaces/${encodeURIComponent(project)}/app-metrics?since=${since}`, Math.min(LIST_TIMEOUT_MS, this.#timeoutMs));
  }

  async #read<T>(path: string, timeoutMs = this.#timeoutMs): Promise<ReplicaAnswers<T>> {
    const targets = this.#replicas.live().map((r) => ({ name: r.metadata?.name ?? '', url: r.spec.statusURL }));
    const signal = AbortSignal.timeout(timeoutMs);
    const bodies = await Promise.all(
      targets.map(async (target) => {
        if (!target.url) return undefined; // a replica without a status port to read
        try {
          const res = await fetch(`${target.url}${path}`, { headers: this.#headers, signal, redirect: 'error' });
          if (!res.ok) {
            await res.body?.cancel();
            return undefined;
          }
          return (await res.json()) as T;
        } catch {
          return undefined; // unreachable, late or not JSON: missing
        }
      }),
    );
    return {
      answered: targets.flatMap((t, i) => (bodies[i] === undefined ? [] : [{ replica: t.name, body: bodies[i] }])),
      live: targets.length,
      missing: targets.flatMap((t, i) => (bodies[i] === undefined ? [t.name] : [])),
    };
  }
}
