// Bounds on how long a computation may take, for the tests of code made linear (a pattern that backtracked, a search
// per item): in the process's CPU time, which other load on the machine does not stretch as it stretches the wall
// clock (on a loaded two-core machine, work of a few hundred milliseconds passed a bound of a second).

/** Runs `fn` and answers the CPU time (user and system, of this process) it took, in milliseconds. */
export function cpuTimeMs(fn: () => void): number {
  const started = process.cpuUsage();
  fn();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}
