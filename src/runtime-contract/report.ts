// One app's report, as a replica's RuntimeReplica carries it (and `GET /apps/{namespace}/{app}` shows it):
// the contract between a cw-runtime replica and the RuntimeApp controller, which turns it into conditions.

/** Why the runtime stopped serving an app: a request ran too long without yielding, or its shard ran out of memory. */
export type LimitReason = 'CPULimitExceeded' | 'MemoryLimitExceeded';

/**
 * Why a replica does not serve the spec it last acted on: `BuildFailed` (the artifact is invalid or workerd
 * refuses to load it; not retried, the message says why), `BuildNotFound` (no artifact at the build's key;
 * retried with backoff), `InsufficientStorage` (no room for the build in the replica's data directory) and
 * `QuotaExceeded` (the project's unpacked builds would pass its quota), both retried with backoff as room may
 * come, `DatabaseNotFound` and `DatabaseNotReady` (an entry of `spec.databaseEnvironment` names no Database of the
 * app's namespace, or one without app tokens yet; retried when the Database changes), and `Retrying` (anything else, such as the object store being unreachable; retried).
 */
export type FailureReason = 'BuildFailed' | 'BuildNotFound' | 'InsufficientStorage' | 'QuotaExceeded' | 'DatabaseNotFound' | 'DatabaseNotReady' | 'Retrying';

export interface DeployFailure {
  readonly reason: FailureReason;
  readonly buildId: string;
  /** For `BuildFailed`, about the user's code and safe to show them; otherwise for operators. */
  readonly message: string;
}

export interface RuntimeAppReport {
  readonly namespace: string;
  readonly app: string;
  /** The build this replica routes the app's hosts to now; absent when it serves nothing. */
  readonly servingBuildId?: string;
  /** Every host routed to the app, the default host first; empty when nothing is served. */
  readonly hosts: readonly string[];
  /** URL of the default host, when served. */
  readonly url?: string;
  /** `metadata.generation` of the RuntimeApp whose whole spec (build, environment, hosts, limit) is served. */
  readonly servedGeneration?: number;
  /** `metadata.generation` of the spec this replica last acted on. */
  readonly observedGeneration?: number;
  /** Why `observedGeneration` is not served; absent while it rolls out and once it is served. */
  readonly failure?: DeployFailure;
  /** This replica does not route to the app for a while: one of its requests stopped its workerd shard. */
  readonly quarantine?: QuarantineReport;
  /** While the replica splits the app's traffic between two releases (`servingPlan`): what it applies and has counted. */
  readonly rollout?: RolloutReport;
}

/**
 * A replica's side of a rollout: the new release it splits for, at which weight, and the requests and errors
 * (5xx answers and uncaught exceptions) of each release since it began serving this split (a restart counts from zero).
 */
export interface RolloutReport {
  readonly release: string;
  readonly weight: number;
  /**
   * The replica stopped sending traffic to the new release: a request stopped its workerd shard (past the CPU
   * bound or out of memory), and the new release is blamed (weight is 0 then). The operator aborts the rollout.
   */
  readonly suspended?: boolean;
  /**
   * Which run of the split the counts are of: a new one when the replica restarts or the split starts again, so the
   * operator takes each run's counts from that run's own baseline (a restart does not read as fewer requests).
   */
  readonly run?: string;
  readonly stable: { readonly requests: number; readonly errors: number };
  readonly canary: { readonly requests: number; readonly errors: number };
}

export interface QuarantineReport {
  readonly reason: LimitReason;
  /** When it is served again (RFC 3339). */
  readonly until: string;
  /** What the app did (stable while it lasts: no times). */
  readonly message: string;
}
