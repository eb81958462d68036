import { PublicError } from '../errors.ts';

/** The uploaded artifact is not one the runtime can serve (400). The message names the problem. */
export class ArtifactError extends PublicError {
  override readonly name = 'ArtifactError';
  constructor(detail: string) {
    super(400, detail);
  }
}

/** Which artifact limit was exceeded. */
export type ArtifactLimitName = 'compressedBytes' | 'uncompressedBytes' | 'fileBytes' | 'files' | 'moduleBytes' | 'configBytes';

/** The artifact exceeds a configured limit (413); `limit` and `maximum` say which and how much. */
export class ArtifactTooLargeError extends PublicError {
  override readonly name = 'ArtifactTooLargeError';
  readonly limit: ArtifactLimitName;
  readonly maximum: number;
  constructor(limit: ArtifactLimitName, maximum: number, detail: string) {
    super(413, detail);
    this.limit = limit;
    this.maximum = maximum;
  }
}

/**
 * workerd refused to load a build (syntax error, an import that does not resolve, an unknown
 * compatibility flag, an exception at module top level, …). `detail` is workerd's own report, which is
 * about the user's code and safe to show them. The runtime keeps serving the app's previous build.
 */
export class BuildLoadError extends Error {
  override readonly name = 'BuildLoadError';
  readonly buildId: string;
  readonly detail: string;
  constructor(buildId: string, detail: string) {
    super(`build ${buildId} cannot be loaded: ${detail}`);
    this.buildId = buildId;
    this.detail = detail;
  }
}

/**
 * The runtime's data directory has no room for the build: unpacking it would take the builds past the room
 * they are given, or the file system is nearly full. Not the build's fault, and it may pass once other builds
 * go: the replica reports it (`InsufficientStorage`) and tries again later. Nothing of the build is kept.
 */
export class InsufficientStorageError extends Error {
  override readonly name = 'InsufficientStorageError';
  readonly buildId: string;
  constructor(buildId: string, detail: string) {
    super(detail);
    this.buildId = buildId;
  }
}

/**
 * The project's builds would unpack to more than its quota on this replica. The replica reports it
 * (`QuotaExceeded`) and tries again later: the project's other builds may shrink.
 */
export class BuildQuotaError extends Error {
  override readonly name = 'BuildQuotaError';
  readonly buildId: string;
  constructor(buildId: string, detail: string) {
    super(detail);
    this.buildId = buildId;
  }
}
