import { waitFor, type Informer, type KubeObject } from '../kube/index.ts';

/** How long a write waits for this process's cache to show it; the Kubernetes-backed stores use the same. */
export const DEFAULT_CACHE_WAIT_MS = 5_000;

/**
 * Read-your-writes for a cache fed by a watch: resolves once `caughtUp` holds for the cached object at `key`,
 * woken by the watch's events (never a polling loop), or after `timeoutMs`. Not seeing the write in time is
 * no failure: the write itself succeeded, and the watch will bring it.
 */
export async function settle<T extends KubeObject>(cache: Informer<T>, key: string, caughtUp: (cached: T | undefined) => boolean, timeoutMs = DEFAULT_CACHE_WAIT_MS): Promise<void> {
  await waitFor(cache, key, caughtUp, timeoutMs);
}
