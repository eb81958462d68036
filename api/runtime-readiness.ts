import type { ReadinessCheck } from './routes/health.ts';

/**
 * The runtime engine (`cw-runtime`'s status endpoints, CW_RUNTIME_STATUS_URL, comma-separated): deploys
 * are only useful when something serves them, so the API is ready while at least one runtime replica is.
 * Not every one: a runtime's rolling update or a replica's restart must not take the API out of its Service.
 * The replicas are asked at once, so one that hangs costs no more than the check's own time limit.
 */
export function runtimeReadiness(urls: string | undefined): ReadinessCheck[] {
  const list = (urls ?? '').split(',').map((u) => u.trim()).filter(Boolean);
  if (list.length === 0) return [];
  const ready = async (url: string, signal: AbortSignal): Promise<void> => {
    const res = await fetch(`${url.replace(/\/$/, '')}/readyz`, { signal });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`runtime at ${url} answered ${res.status}`);
  };
  return [
    {
      name: 'runtime engine',
      check: async (signal) => {
        await Promise.any(list.map((url) => ready(url, signal)));
      },
    },
  ];
}
