// How `cw` shows traffic figures: short counts, ratios as percentages, latencies, and a sparkline.

const BARS = '▁▂▃▄▅▆▇█';

/** `950`, `7.2k`, `13k`, `1.4M`. */
export function shortCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  for (const [unit, size] of [
    ['M', 1e6],
    ['k', 1e3],
  ] as const) {
    if (n >= size) {
      const v = n / size;
      return `${v < 10 ? (Math.round(v * 10) / 10).toString() : String(Math.round(v))}${unit}`;
    }
  }
  return String(n);
}

/** `0.3 %`, `12 %`, `–` without requests. */
export function percent(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined) return '–';
  const p = ratio * 100;
  return `${p === 0 ? '0' : p < 10 ? (Math.round(p * 10) / 10).toString() : String(Math.round(p))} %`;
}

/** `4.2 ms`, `20 ms`, `–` without requests. */
export function latency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  return `${ms < 10 ? (Math.round(ms * 10) / 10).toString() : String(Math.round(ms))} ms`;
}

/** One bar per value, scaled to the largest (all low when every value is 0). */
export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values);
  return values.map((v) => (max === 0 ? BARS[0] : BARS[Math.min(BARS.length - 1, Math.round((v / max) * (BARS.length - 1)))])).join('');
}

/** `requests 7.2k · errors 0.3 % · p95 20 ms`. */
export function trafficLine(t: { requests: number; error_ratio: number | null; p95_ms: number | null }): string {
  return `requests ${shortCount(t.requests)} · errors ${percent(t.error_ratio)} · p95 ${latency(t.p95_ms)}`;
}
