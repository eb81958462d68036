// What an orchestrator (api-projects.ts, git-api.ts) hands the load generator (load.ts), and what it gets back.

/** An HTTP GET, loaded by autocannon. */
export interface HttpTarget {
  url: string;
  token?: string;
  /** The server's process id: its CPU time over each measured window is read from `/proc` (bench/process-cpu.ts). */
  pid?: number;
}

/** A process run to completion again and again (its stdout read and dropped), `connections` of them at a time. */
export interface CommandTarget {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

export type LoadTarget = HttpTarget | CommandTarget;

export interface LoadPlan {
  targets: LoadTarget[];
  connections: number;
  rounds: number;
  /** Warm-up before each window of the first round. */
  firstWarmupSeconds: number;
  /** Warm-up before each later window. */
  warmupSeconds: number;
  durationSeconds: number;
}

export interface LoadResult {
  /** Completed requests (or process runs) per second. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** The server's CPU time (user + system) over the window divided by the requests answered in it, when its pid was given. */
  cpuMicrosPerRequest?: number;
}

export interface LoadWindow extends LoadResult {
  round: number;
  /** Index into {@link LoadPlan.targets}. */
  target: number;
}

/** A window whose figures mean nothing: errors, timeouts or non-2xx answers (a 401 or 429), or no answer at all. */
export function failed(result: LoadResult): boolean {
  return result.errors > 0 || result.timeouts > 0 || result.non2xx > 0 || result.total === 0;
}
