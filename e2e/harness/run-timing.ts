import { readFileSync } from 'node:fs';

/** When one test file ran, in milliseconds since the epoch. */
export interface FileSpan {
  readonly start: number;
  readonly end: number;
}

export interface RunTiming {
  /** From the run's start until the first file began: global setup (the control plane, MinIO, moto) and collection. */
  readonly beforeFirstMs: number;
  /** Files running at once, on average, from the first file's start to the last one's end. */
  readonly averageRunning: number;
  /** How long before the last file ended fewer than `workers` files last ran at once: the tail a longer file or a serial group leaves. */
  readonly tailMs: number;
}

/** Where a run's time went, from when each file ran: what a CI log needs to say why `make test` took as long as it did. */
export function runTiming(spans: readonly FileSpan[], runStart: number, workers: number): RunTiming | undefined {
  if (spans.length === 0) return undefined;
  const first = Math.min(...spans.map((s) => s.start));
  const last = Math.max(...spans.map((s) => s.end));
  const busy = spans.reduce((sum, s) => sum + (s.end - s.start), 0);
  // Sweep the starts and ends in time order; the last moment `workers` files ran at once ends the full stretch.
  const events = spans
    .flatMap((s) => [
      { at: s.start, delta: 1 },
      { at: s.end, delta: -1 },
    ])
    .sort((a, b) => a.at - b.at || a.delta - b.delta);
  let running = 0;
  let lastFull = first;
  for (const { at, delta } of events) {
    if (running >= workers && delta < 0) lastFull = at;
    running += delta;
  }
  return { beforeFirstMs: first - runStart, averageRunning: last > first ? busy / (last - first) : spans.length, tailMs: last - lastFull };
}

/** The machine's CPU time so far, busy and in all, in clock ticks (`/proc/stat`'s first line); undefined where there is none. */
export function cpuTicks(read: (path: string) => string = (path) => readFileSync(path, 'utf8')): { busy: number; total: number } | undefined {
  try {
    const fields = read('/proc/stat').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((sum, n) => sum + n, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle and iowait
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}
