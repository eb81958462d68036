/** How long a write waits for this process's cache to show it; the Kubernetes-backed stores use the same. */
export const DEFAULT_CACHE_WAIT_MS = 5_000;

/**
 * Read-your-writes for a cache fed by a watch: resolves once `caughtUp()` holds, or after `timeoutMs`.
 * Not seeing the write in time is no failure: the write itself succeeded, and the watch will bring it.
 */
export async function settle(caughtUp: () => boolean, timeoutMs = DEFAULT_CACHE_WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!caughtUp() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}
