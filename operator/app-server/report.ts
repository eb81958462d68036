// One app's report, as a replica's RuntimeReplica carries it (and `GET /apps/{namespace}/{app}` shows it):
// the contract between a cw-runtime replica and the RuntimeApp controller, which turns it into conditions.
import type { LimitReason, ServedApp } from '../../src/workerd/index.ts';

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
}

export interface QuarantineReport {
  readonly reason: LimitReason;
  /** When it is served again (RFC 3339). */
  readonly until: string;
  /** What the app did (stable while it lasts: no times). */
  readonly message: string;
}

/** What a replica remembers of one app between reconciles: in memory only, rebuilt after a restart. */
export interface AppRecord {
  readonly generation: number;
  readonly buildId: string;
  /** The app's active AppHostnames deployed with that generation (sorted): they change without a new generation. */
  readonly attached?: readonly string[];
  /** The app tokens' generations its linked variables were read at (`linkSignature`): a rotation changes it. */
  readonly linked?: string;
  readonly servedGeneration?: number;
  readonly failure?: DeployFailure;
}

/** The report for an app, or `undefined` when this replica neither serves nor has acted on it (404). */
export function reportFor(namespace: string, app: string, record: AppRecord | undefined, served: ServedApp | undefined, quarantine?: QuarantineReport): RuntimeAppReport | undefined {
  if (!record && !served) return undefined;
  return {
    namespace,
    app,
    ...(served ? { servingBuildId: served.buildId, url: served.url } : {}),
    hosts: served ? [...served.hosts] : [],
    ...(record?.servedGeneration !== undefined && served ? { servedGeneration: record.servedGeneration } : {}),
    ...(record ? { observedGeneration: record.generation } : {}),
    ...(record?.failure ? { failure: record.failure } : {}),
    ...(quarantine && served ? { quarantine } : {}),
  };
}
