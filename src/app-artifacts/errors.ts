import { PublicError } from '../errors.ts';

/** The uploaded artifact is not one the runtime can serve (400). The message names the problem. */
export class ArtifactError extends PublicError {
  override readonly name = 'ArtifactError';
  constructor(detail: string) {
    super(400, detail);
  }
}

/** Which artifact limit was exceeded. */
export type ArtifactLimitName = 'compressedBytes' | 'uncompressedBytes' | 'fileBytes' | 'files' | 'moduleBytes' | 'configBytes' | 'migrationFiles' | 'migrationBytes';

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

/** The runtime has no room for a build: not the build's fault, and room may come, so it is tried again later. */
abstract class NoRoomError extends Error {
  readonly buildId: string;
  /** Bytes the build needs at least (as far as it was read; 0 when it was refused before). */
  readonly needed: number;
  constructor(buildId: string, needed: number, detail: string) {
    super(detail);
    this.buildId = buildId;
    this.needed = needed;
  }
}

/**
 * The runtime's data directory has no room for the build: unpacking it would take the builds past the room
 * they are given, or the file system is nearly full. The replica reports it (`InsufficientStorage`). Nothing
 * of the build is kept.
 */
export class InsufficientStorageError extends NoRoomError {
  override readonly name = 'InsufficientStorageError';
}

/** The project's builds would unpack to more than its quota on this replica; reported as `QuotaExceeded`. */
export class BuildQuotaError extends NoRoomError {
  override readonly name = 'BuildQuotaError';
}
