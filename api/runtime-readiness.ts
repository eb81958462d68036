import type { RuntimeReplicaView } from '../src/platform/runtime-replicas.ts';
import type { ReadinessCheck } from './routes/health.ts';

/**
 * The runtime engine: deploys are only useful when something serves them, so the API is ready while at
 * least one cw-runtime replica is live (its Lease unexpired) and takes traffic, as its RuntimeReplica says.
 * Read from the watch caches, never from the replicas over HTTP: no address is configured, and a rolling
 * update or a scale-down leaves the API in its Service as long as one replica counts.
 */
export function runtimeReadiness(replicas: Pick<RuntimeReplicaView, 'ready'>, now: () => number = Date.now): ReadinessCheck[] {
  return [
    {
      name: 'runtime engine',
      check: async () => {
        if (replicas.ready(now()).length === 0) throw new Error('no cw-runtime replica is live and ready');
      },
    },
  ];
}
