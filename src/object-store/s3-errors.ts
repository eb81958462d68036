import { isNetworkError } from '../network-errors.ts';
// What an error thrown by the S3 client means for the store port. Pure (reads the error's fields only), so the
// rules are unit-tested without the SDK.

export type S3ErrorClass = 'not_modified' | 'not_found' | 'precondition_failed' | 'checksum_mismatch' | 'retryable' | 'fatal';

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $retryable?: unknown;
  cause?: unknown;
}

const RETRYABLE_CODES = new Set([
  'SlowDown',
  'ServiceUnavailable',
  'InternalError',
  'RequestTimeout',
  'RequestTimeoutException',
  'ThrottlingException',
  'ConditionalRequestConflict', // 409: a concurrent conditional write was in flight; S3 says to retry
  'OperationAborted',
  'TimeoutError',
  'AbortError',
]);

const CHECKSUM_CODES = new Set(['BadDigest', 'XAmzContentSHA256Mismatch', 'XAmzContentChecksumMismatch', 'InvalidDigest']);

/** Classifies an error from the S3 client (an HTTP answer with `$metadata`, or a transport error). */
export function classifyS3Error(err: unknown): S3ErrorClass {
  if (typeof err !== 'object' || err === null) return 'fatal';
  const e = err as ErrorShape;
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const name = typeof e.name === 'string' ? e.name : '';
  if (status === 304 || name === 'NotModified') return 'not_modified';
  if (status === 412 || name === 'PreconditionFailed') return 'precondition_failed';
  if (status === 404 || name === 'NoSuchKey' || name === 'NotFound') return 'not_found';
  if (CHECKSUM_CODES.has(name)) return 'checksum_mismatch';
  if (RETRYABLE_CODES.has(name) || e.$retryable !== undefined) return 'retryable';
  if (status !== undefined) return status === 409 || status === 429 || status >= 500 ? 'retryable' : 'fatal';
  // No HTTP answer at all: a transport failure is retryable, anything else (a bug of ours) is not.
  if (isNetworkError(err)) return 'retryable';
  return 'fatal';
}
