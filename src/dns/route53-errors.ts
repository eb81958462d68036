// What an error thrown by the Route 53 client means for the DNS provider port. Pure (reads the error's
// fields, never its message), so the rules are unit-tested without the SDK.
import { DnsProviderError, type DnsProviderErrorCode } from './provider.ts';
import { isNetworkError } from '../network-errors.ts';

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $retryable?: unknown;
  cause?: unknown;
}

const BY_NAME: Readonly<Record<string, DnsProviderErrorCode>> = {
  NoSuchHostedZone: 'zone_not_found',
  Throttling: 'throttled',
  ThrottlingException: 'throttled',
  TooManyRequestsException: 'throttled',
  PriorRequestNotComplete: 'throttled',
  InvalidChangeBatch: 'rejected',
  InvalidInput: 'rejected',
  InvalidDomainName: 'rejected',
  ConflictingDomainExists: 'rejected',
  HostedZoneAlreadyExists: 'rejected',
  HostedZoneNotEmpty: 'rejected',
  TooManyHostedZones: 'limit_exceeded',
  LimitsExceeded: 'limit_exceeded',
  DelegationSetNotAvailable: 'limit_exceeded',
  AccessDenied: 'access_denied',
  AccessDeniedException: 'access_denied',
  InvalidClientTokenId: 'access_denied',
  UnrecognizedClientException: 'access_denied',
  SignatureDoesNotMatch: 'access_denied',
  ExpiredToken: 'access_denied',
  ExpiredTokenException: 'access_denied',
  CredentialsProviderError: 'access_denied',
  ServiceUnavailable: 'unavailable',
  InternalFailure: 'unavailable',
  InternalError: 'unavailable',
  TimeoutError: 'unavailable',
  RequestTimeout: 'unavailable',
  RequestTimeoutException: 'unavailable',
  AbortError: 'unavailable',
};

/** Answers that are refusals now but may succeed later, without anything changing on our side. */
const RETRYABLE_REJECTIONS = new Set(['HostedZoneNotEmpty']);

/** The Route 53 error code (`InvalidChangeBatch`) of an SDK error, or `undefined` for a transport failure. */
export function route53ErrorName(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as ErrorShape;
  return typeof e.name === 'string' && e.name !== 'Error' ? e.name : undefined;
}

/** Classifies an error from the Route 53 client. */
export function classifyRoute53Error(err: unknown): DnsProviderErrorCode {
  if (typeof err !== 'object' || err === null) return 'invalid';
  const e = err as ErrorShape;
  const name = route53ErrorName(err) ?? '';
  const byName = BY_NAME[name];
  if (byName) return byName;
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  if (status !== undefined) {
    if (status === 429) return 'throttled';
    if (status >= 500) return 'unavailable';
    if (status === 401 || status === 403) return 'access_denied';
    if (status === 404) return 'zone_not_found';
    return 'invalid';
  }
  // No HTTP answer at all: a transport failure is retryable, anything else (a bug of ours) is not.
  if (isNetworkError(err)) return 'unavailable';
  return e.$retryable !== undefined ? 'unavailable' : 'invalid';
}

/** The port's error for an error of the Route 53 client during `op`. */
export function toDnsProviderError(err: unknown, op: string): DnsProviderError {
  if (err instanceof DnsProviderError) return err;
  const providerCode = route53ErrorName(err);
  const code = classifyRoute53Error(err);
  const retryable = providerCode !== undefined && RETRYABLE_REJECTIONS.has(providerCode) ? true : undefined;
  return new DnsProviderError(code, { op, providerCode, cause: err, ...(retryable ? { retryable } : {}) });
}
