/** A failure the user can act on: printed as one line, exit code 1. */
export class CliError extends Error {
  readonly exitCode: number = 1;
}

/** The command line itself is wrong (a missing argument, an unknown option): exit code 2, as shells expect. */
export class UsageError extends CliError {
  override readonly exitCode: number = 2;
}

/** An HTTP answer that was not a success, carrying the problem detail's `detail` (or the status line). */
export class ApiError extends CliError {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
