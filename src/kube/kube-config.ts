import { KubeConfig } from '@kubernetes/client-node';
import { RawApi } from './raw-api.ts';

/**
 * A loaded kubeconfig plus the request pipeline built from it. Other modules pass this handle around
 * without touching client-node.
 */
export interface KubeConnection {
  /** The apiserver URL, for logs. */
  readonly server: string;
  /** @internal client-node objects; only `src/kube` reads these. */
  readonly config: KubeConfig;
  /** @internal */
  readonly api: RawApi;
}

/**
 * Loads a kubeconfig from `path`, or else client-node's default chain (`$KUBECONFIG`, `~/.kube/config`,
 * then the in-cluster service account). `component` (`cw-api`, …) names this process's writes: their field
 * manager in `managedFields`.
 */
export function loadKubeConnection(path?: string, component?: string): KubeConnection {
  const config = new KubeConfig();
  if (path) config.loadFromFile(path);
  else config.loadFromDefault();
  return connectionFor(config, component);
}

/** Wraps an already loaded client-node `KubeConfig`. */
export function connectionFor(config: KubeConfig, component?: string): KubeConnection {
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const api = config.makeApiClient(RawApi);
  api.fieldManager = component;
  return { server: cluster.server, config, api };
}
