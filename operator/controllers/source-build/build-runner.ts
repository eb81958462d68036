// The port a SourceBuild is run through. Two implementations with the same inputs and outputs: a Kubernetes Job
// in a sandboxed pod (job-runner.ts, in a cluster) and a limited child process (local-runner.ts, `make dev` and the
// faster tests). Either runs the builder script (builder-script.ts) with the run's settings: it fetches the
// commit's source from `sourceUrl`, runs the command, and puts a tar of the output directory at `outputUrl`.
// Neither URL is a platform credential: each is presigned for one object, for one method, for a short time.

/** Bounds of one run; hitting one fails the run with ResourceLimitExceeded or DeadlineExceeded. */
export interface BuildLimits {
  /** CPU the run may use, in millicores (a Job's limit; the local runner bounds CPU time by deadline × cores). */
  readonly cpuMillis: number;
  readonly memoryBytes: number;
  /** The workspace: the source, dependencies and output together. */
  readonly diskBytes: number;
  readonly deadlineSeconds: number;
}

export const DEFAULT_BUILD_LIMITS: BuildLimits = { cpuMillis: 1000, memoryBytes: 2 * 1024 ** 3, diskBytes: 4 * 1024 ** 3, deadlineSeconds: 15 * 60 };

export interface BuildRunSpec {
  /** Unique per attempt of one SourceBuild (`<name>-<attempt>-<uid>`, run-id.ts): a Job's name, a process's key. */
  readonly id: string;
  /** The project's namespace and the SourceBuild's name, for labels and logs. */
  readonly namespace: string;
  readonly build: string;
  /** GET: a gzipped tar of the commit's root directory. */
  readonly sourceUrl: string;
  /** PUT: where the tar of the output directory goes. */
  readonly outputUrl: string;
  /** Run with `sh -c` in the source directory; absent: nothing is run. */
  readonly command?: string | undefined;
  /** Relative to the source directory; `.` for the directory itself. */
  readonly outputDirectory: string;
  /** The build's environment (plain values only; never a platform credential). */
  readonly environment: Readonly<Record<string, string>>;
  readonly limits: BuildLimits;
}

export type RunFailureReason = 'CommandFailed' | 'DeadlineExceeded' | 'ResourceLimitExceeded' | 'OutputInvalid' | 'SourceUnavailable' | 'RunnerFailed';

export type RunResult =
  | { readonly outcome: 'succeeded' }
  | { readonly outcome: 'failed'; readonly reason: RunFailureReason; readonly message: string }
  /** Stopped by `stop` (superseded or cancelled). */
  | { readonly outcome: 'stopped' };

export interface RunEvents {
  /** Output of the run as it comes (the builder's steps and the command's stdout and stderr). */
  log(text: string): void;
  /** Called once, when the run is over. */
  finished(result: RunResult): void;
}

export interface BuildRunner {
  /** `job` or `local`: recorded on the SourceBuild's status. */
  readonly kind: string;
  /**
   * Starts the run of `spec.id`, or follows the one of that id already going (a Job that outlived an operator
   * restart: its log is reported again from its start). Resolves once started; `events.finished` follows.
   */
  run(spec: BuildRunSpec, events: RunEvents): Promise<void>;
  /** Stops the run of `id` if it is going (its `finished` says `stopped`), and removes what it left. */
  stop(id: string): Promise<void>;
}
