// What the orchestrator (api-projects.ts) hands the load generator (load.ts), and what it gets back.

export interface LoadTarget {
  url: string;
  token?: string;
}

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
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
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
