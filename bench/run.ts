import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a benchmark started and must stop, and where its logs go. */
export interface BenchRun {
  readonly stateDir: string;
  /** Stopped in reverse order when the run ends, fails or is interrupted. */
  readonly stops: (() => Promise<void>)[];
}

export function benchRun(): BenchRun {
  return { stateDir: mkdtempSync(join(tmpdir(), 'cw-bench-')), stops: [] };
}

/**
 * Runs `main`, then stops everything it started. On failure (or Ctrl-C) the logs are kept and named, and
 * the process exits non-zero; on success they are removed unless CW_KEEP_BENCH_STATE is set.
 */
export async function runBench(run: BenchRun, main: () => Promise<void>): Promise<void> {
  let keep = Boolean(process.env.CW_KEEP_BENCH_STATE);
  const stopAll = async () => {
    for (const stop of run.stops.reverse()) await stop().catch(() => {});
    run.stops.length = 0;
    if (!keep) rmSync(run.stateDir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  try {
    await main();
    await stopAll();
  } catch (err) {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)} (logs: ${run.stateDir}, kept)\n`);
    keep = true;
    await stopAll();
    process.exit(1);
  }
}
