import type { RuntimeReplicaView } from '../src/platform/runtime-replicas.ts';
import type { DependencyCheck } from './dependencies.ts';

/**
 * The runtime engine: deploys are only useful when something serves them, so it is up while at least one
 * cw-runtime replica is live (its Lease unexpired) and takes traffic, as its RuntimeReplica says. Read from the
 * watch caches, never from the replicas over HTTP: no address is configured.
 */
export function runtimeDependency(replicas: Pick<RuntimeReplicaView, 'serving'>, now: () => number = Date.now): DependencyCheck {
  return {
    name: 'runtime engine',
    check: async () => {
      if (replicas.serving(now()).length === 0) throw new Error('no cw-runtime replica is live and takes traffic');
    },
  };
}
