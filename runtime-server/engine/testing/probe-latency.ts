/**
 * Runs `attack` while `probe` (a request to a bystander, checking its answer) runs one call after another;
 * answers the attack's result and each probe's latency in ms. For measuring what an attack does to others.
 */
export async function whileProbing<T>(probe: () => Promise<void>, attack: () => Promise<T>): Promise<{ result: T; latenciesMs: number[] }> {
  const latenciesMs: number[] = [];
  let attacking = true;
  const probing = (async () => {
    while (attacking) {
      const t0 = performance.now();
      await probe();
      latenciesMs.push(performance.now() - t0);
    }
  })();
  try {
    return { result: await attack(), latenciesMs };
  } finally {
    attacking = false;
    await probing;
  }
}

/** `N requests, p50 …, p99 …, max …` of latencies in ms. */
export function latencySummary(ms: readonly number[]): string {
  if (ms.length === 0) return 'no requests';
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(1);
  return `${ms.length} requests, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`;
}
