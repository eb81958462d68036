import { readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat`'s times: `sysconf(_SC_CLK_TCK)`, 100 on every Linux Node runs on. */
const TICKS_PER_SECOND = 100;

/**
 * A process's CPU time so far (user + system, in microseconds) from `/proc/<pid>/stat`, or `undefined` where
 * there is no such file (not Linux, the process gone). Read around a load window, it gives the server's CPU
 * time per request: far steadier on a shared machine than its throughput, since other load only slows the
 * server's clock, not its work (bench/README.md).
 */
export function processCpuMicros(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15, i.e. 11 and 12 after the state (field 3).
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1_000_000) / TICKS_PER_SECOND : undefined;
}
