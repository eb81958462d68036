// The load generator's closed loop for a command target: `connections` processes always running, each
// replaced by the next as it exits, for `duration` seconds. A run's latency is spawn to exit with its stdout
// read to the end, as a server reading git's answer would; a run exiting non-zero counts as an error.
import { spawn } from 'node:child_process';
import type { CommandTarget, LoadResult } from './load-plan.ts';

function runOnce(target: CommandTarget): Promise<{ ms: number; ok: boolean }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(target.command, target.args, { env: { ...process.env, ...target.env }, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.resume();
    child.once('error', () => resolve({ ms: performance.now() - t0, ok: false }));
    child.once('close', (code) => resolve({ ms: performance.now() - t0, ok: code === 0 }));
  });
}

/** The nearest-rank percentile of sorted `values`. */
function rank(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

export async function loadCommand(target: CommandTarget, connections: number, duration: number): Promise<LoadResult> {
  const ms: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  const end = t0 + duration * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const run = await runOnce(target);
      // A run still going at the end is finished but not counted, as autocannon counts no request unanswered.
      if (performance.now() > end) break;
      if (run.ok) ms.push(run.ms);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const sorted = ms.sort((a, b) => a - b);
  return {
    requestsPerSecond: ms.length / seconds,
    p50Ms: rank(sorted, 50),
    p99Ms: rank(sorted, 99),
    total: ms.length,
    errors,
    timeouts: 0,
    non2xx: 0,
    statusCodes: { exit0: ms.length, ...(errors > 0 ? { nonzero: errors } : {}) },
  };
}
