import type { KubeConnection } from './kube-config.ts';

/**
 * Asks the apiserver whether it is ready (`GET /readyz`); throws when it is not reachable or not ready.
 * Used by readiness probes, so it reads nothing and costs the apiserver almost nothing.
 */
export async function pingApiServer(conn: KubeConnection, signal?: AbortSignal): Promise<void> {
  const request = conn.api.request<string>('GET', '/readyz', { text: true });
  if (!signal) {
    await request;
    return;
  }
  signal.throwIfAborted();
  await Promise.race([request, new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))]);
}
