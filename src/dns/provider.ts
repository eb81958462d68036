// The DNS provider port: the handful of calls the platform makes on the service hosting project zones.
// `Route53Provider` is the real one (route53-provider.ts, the only importer of the Route 53 SDK),
// `MemoryDnsProvider` the fake; both pass `describeDnsProviderContract` (testing/dns-provider-contract.ts).
// Which records should exist is decided elsewhere (plan.ts); the provider only does what it is told.
import { PublicError } from '../errors.ts';

/**
 * One record set: every value of one type at one name. `name` is the fully qualified name in lowercase
 * without the trailing dot (`www.example.com`, `*.example.com`, the apex `example.com`). `values` are in the
 * canonical form of record-values.ts for the types we write (TXT: the text, unquoted); other types as the
 * provider spells them.
 */
export interface RecordSet {
  readonly name: string;
  readonly type: string;
  readonly ttl: number;
  readonly values: readonly string[];
  /**
   * Set on record sets using provider features the platform never writes (a Route 53 alias, weighted or
   * latency record set). Such a record set is never ours, and `values` only describes it.
   */
  readonly providerSpecific?: boolean;
}

/**
 * What to change in a zone. `create` and `update` are both written as create-or-replace (UPSERT), so a
 * retried change is harmless; `delete` removes record sets by name and type, and deleting one that is
 * already gone (or whose values changed meanwhile) succeeds. A provider applies the deletes first, then the
 * creates and updates, each in the order given; a change too large for one request is applied in parts, in
 * that order, so callers put what must exist first (an ownership mark before its record) first.
 */
export interface Changes {
  readonly create: readonly RecordSet[];
  readonly update: readonly RecordSet[];
  readonly delete: readonly RecordSet[];
}

/** A hosted zone: its provider id (`Z0123456789ABC`) and the nameservers the owner delegates to. */
export interface HostedZone {
  readonly zoneId: string;
  /** Lowercase host names without the trailing dot, as `RecordSet` names. */
  readonly nameservers: readonly string[];
}

/**
 * The hosted-zone service behind project domains. A provider is constructed with the installation's owner id
 * and tags the zones it creates with it. Every call either answers or throws `DnsProviderError`.
 */
export interface DnsProvider {
  /**
   * Creates the hosted zone for `domain`, tagged as ours, and answers its id and nameservers. Idempotent by
   * `callerReference` (at most 128 characters; use the ProjectDomain's uid): a retry, even after a crash
   * between the request and its answer, answers the zone created first, never a second one. A zone that was
   * deleted is not found again: a new incarnation of the domain needs a new caller reference.
   */
  createZone(domain: string, callerReference: string): Promise<HostedZone>;
  /**
   * The id of the zone `createZone(domain, callerReference)` made, while it exists; `undefined` if none was
   * made or it is gone. How a zone whose creation was never recorded (a crash between the provider's answer
   * and the status write) is still found and deleted.
   */
  findZone(domain: string, callerReference: string): Promise<string | undefined>;
  /**
   * Deletes the zone and, first, every record set in it except its own apex NS and SOA (a provider refuses
   * to delete a non-empty zone). A zone that is already gone is success. Throws `not_owned` for a zone that
   * this installation did not create.
   */
  deleteZone(zoneId: string): Promise<void>;
  /** Every record set in the zone, including the apex NS and SOA and ownership marks. */
  listRecords(zoneId: string): Promise<RecordSet[]>;
  /** Applies `changes` (see `Changes`); an empty change makes no request. */
  applyChanges(zoneId: string, changes: Changes): Promise<void>;
}

/** Tag on every zone we create: the owner id of the installation that created it. */
export const ZONE_OWNER_TAG = 'cloudwright.dev/owner';
/** Tag on every zone we create: its domain, for people browsing the provider's console. */
export const ZONE_DOMAIN_TAG = 'cloudwright.dev/domain';

/** The empty change. */
export const NO_CHANGES: Changes = Object.freeze({ create: [], update: [], delete: [] });

/** True when `changes` has nothing to apply. */
export function isEmptyChanges(changes: Changes): boolean {
  return changes.create.length === 0 && changes.update.length === 0 && changes.delete.length === 0;
}

/** The identity of a record set within a zone: `www.example.com CNAME`. */
export function recordKey(record: { readonly name: string; readonly type: string }): string {
  return `${record.name} ${record.type}`;
}

/**
 * What went wrong at the provider, coarsely: `unavailable` (unreachable, timing out, 5xx), `throttled`
 * (rate limited, or a previous change still in progress), `zone_not_found`, `not_owned` (the zone is not
 * tagged as this installation's), `rejected` (the provider refused the change as invalid, for example a
 * CNAME conflicting with another record), `limit_exceeded` (too many zones or records), `access_denied`
 * (the platform's credentials are wrong or lack permission), `invalid` (a request we should not have made).
 */
export type DnsProviderErrorCode = 'unavailable' | 'throttled' | 'zone_not_found' | 'not_owned' | 'rejected' | 'limit_exceeded' | 'access_denied' | 'invalid';

const MESSAGES: Record<DnsProviderErrorCode, string> = {
  unavailable: 'The DNS provider is unavailable; retry later.',
  throttled: 'The DNS provider is busy or rate limiting requests; retry later.',
  zone_not_found: 'The hosted zone no longer exists at the DNS provider.',
  not_owned: 'The hosted zone was not created by this Cloudwright installation; it is left alone.',
  rejected: 'The DNS provider rejected the change.',
  limit_exceeded: 'A limit of the DNS provider (hosted zones or records) was reached.',
  access_denied: "The DNS provider refused the platform's credentials; an operator must fix the DNS provider configuration.",
  invalid: 'The DNS provider could not process the request.',
};

const RETRYABLE: ReadonlySet<DnsProviderErrorCode> = new Set(['unavailable', 'throttled']);

export interface DnsProviderErrorOptions {
  /** The port call that failed: `createZone`, `applyChanges` … */
  op: string;
  /** Overrides the default: a `rejected` change may succeed later (a zone not yet empty). */
  retryable?: boolean;
  /** The provider's own error code (`InvalidChangeBatch`): safe to log and show, never its message. */
  providerCode?: string;
  /** The original error, for logs only; it is never part of `message`. */
  cause?: unknown;
}

/**
 * A DNS provider call failed. `message` is fixed per `code` (never the provider's text, which may carry
 * request ids, account details or endpoint names), so it is safe in a condition message or an HTTP body:
 * retryable errors render as 503 with Retry-After, the others as 502.
 */
export class DnsProviderError extends PublicError {
  override readonly name = 'DnsProviderError';
  readonly code: DnsProviderErrorCode;
  readonly retryable: boolean;
  readonly op: string;
  readonly providerCode: string | undefined;

  constructor(code: DnsProviderErrorCode, options: DnsProviderErrorOptions) {
    const retryable = options.retryable ?? RETRYABLE.has(code);
    super(retryable ? 503 : 502, MESSAGES[code], retryable ? { 'retry-after': '10' } : {});
    this.code = code;
    this.retryable = retryable;
    this.op = options.op;
    this.providerCode = options.providerCode;
    if (options.cause !== undefined) this.cause = options.cause;
  }
}
