// Errors of the repository store. Those a client can act on are `PublicError`s (src/errors.ts); the others
// mean the bucket holds something this build cannot use, and are for operators.
import { PublicError } from '../errors.ts';

export class RepoNotFoundError extends PublicError {
  override readonly name = 'RepoNotFoundError';
  constructor(repo: string) {
    super(404, `repository ${repo} does not exist`);
  }
}

export class RepoExistsError extends PublicError {
  override readonly name = 'RepoExistsError';
  constructor(repo: string) {
    super(409, `repository ${repo} already exists`);
  }
}

/** A publish request that can never succeed as sent (bad ref name, bad oid, duplicate ref, ...). */
export class InvalidPublishError extends PublicError {
  override readonly name = 'InvalidPublishError';
  constructor(detail: string) {
    super(400, detail);
  }
}

/** The requested seq is past the head. */
export class SeqOutOfRangeError extends PublicError {
  override readonly name = 'SeqOutOfRangeError';
  constructor(repo: string, seq: number, head: number) {
    super(404, `repository ${repo} has no seq ${seq}: its head is ${head}`);
  }
}

/** The log entries needed to answer were folded away by retention and no checkpoint covers the seq. */
export class HistoryUnavailableError extends PublicError {
  override readonly name = 'HistoryUnavailableError';
  constructor(repo: string, seq: number) {
    super(410, `the history of ${repo} at seq ${seq} is no longer kept`);
  }
}

/** The repository is being deleted: it can be created again once the deletion is done. */
export class RepoBusyError extends PublicError {
  override readonly name = 'RepoBusyError';
  constructor(repo: string) {
    super(409, `repository ${repo} is being deleted; create it again in a moment`, { 'retry-after': '5' });
  }
}

/** Too many writers won the race in a row; nothing of this publish is visible. Retry later. */
export class PublishContentionError extends PublicError {
  override readonly name = 'PublishContentionError';
  constructor(repo: string) {
    super(503, `too many concurrent writes to ${repo}; retry`, { 'retry-after': '1' });
  }
}

/**
 * The publish's log entry is written, so it is part of the repository's history and will be applied (by any
 * later write), but making it visible failed (the store, or contention). Not "nothing happened": retrying
 * the same publish completes it and is answered `ok` (a ref already at its new value is done, not stale).
 */
export class PublishIncompleteError extends PublicError {
  override readonly name = 'PublishIncompleteError';
  constructor(repo: string, cause: unknown) {
    super(503, `the write to ${repo} was recorded but is not visible yet; retry it to complete it`, { 'retry-after': '1' });
    this.cause = cause;
  }
}

/**
 * The publish wrote its log entry, but by the time it looked again, retention had folded that seq away, so
 * whether the entry at that seq is ours cannot be told. Only a writer paused for longer than log retention
 * can meet this.
 */
export class PublishOutcomeUnknownError extends Error {
  override readonly name = 'PublishOutcomeUnknownError';
  constructor(repo: string, seq: number) {
    super(`the publish to ${repo} at seq ${seq} may or may not have been committed`);
  }
}

/** An object in the bucket does not decode, or a log that does not replay. Never retried. */
export class CorruptObjectError extends Error {
  override readonly name = 'CorruptObjectError';
  readonly key: string;
  constructor(key: string, detail: string) {
    super(`${key}: ${detail}`);
    this.key = key;
  }
}

/** An object written by a newer build (a schema version this build does not know). */
export class UnsupportedSchemaError extends Error {
  override readonly name = 'UnsupportedSchemaError';
  constructor(key: string, schema: unknown) {
    super(`${key} has schema ${String(schema)}, which this build cannot read; upgrade it`);
  }
}
