// The object-store port: the handful of calls the repository service makes on a bucket, with the conditional
// semantics its write-ahead log is built on. `S3ObjectStore` is the real one, `MemoryObjectStore` the fake;
// both pass `describeObjectStoreContract` (testing/object-store-contract.ts).
import type { Readable } from 'node:stream';
import { PublicError } from '../errors.ts';

/** An object's entity tag, opaque and compared whole (S3 quotes it: `"9b2cf535f27731c974343645a3985328"`). */
export type ETag = string;

/**
 * A body that can be read more than once, so a retried request can send it again: bytes, a string (sent as
 * UTF-8), or a stream factory of a known length (a pack spooled to disk is `{ length, open: () => createReadStream(path) }`).
 */
export type PutBody = Uint8Array | string | StreamBody;

export interface StreamBody {
  readonly length: number;
  open(): Readable;
}

export interface GetOptions {
  /** Answer `not-modified` instead of the body when the object still has this etag (HTTP 304). */
  ifNoneMatch?: ETag;
}

export interface PutOptions {
  /** Write only if the object currently has this etag (compare-and-swap). A missing object fails too. */
  ifMatch?: ETag;
  /** `'*'`: write only if no object has this key (conditional create). */
  ifNoneMatch?: '*';
  /** Lowercase hex SHA-256 of the body; the store refuses the write (`ChecksumMismatchError`) if it differs. */
  sha256?: string;
  contentType?: string;
}

export interface ListOptions {
  /** Only keys after this one (exclusive); pass the previous page's `next` to continue. */
  startAfter?: string;
  /** Page size, at most 1000 (the default). */
  limit?: number;
}

/** An object's bytes as a stream, for bodies too big to hold in memory (LFS objects). */
export interface ObjectStream {
  /** The bytes; the reader must consume or destroy it. A failure after the headers surfaces here, not as a retry. */
  readonly body: Readable;
  readonly size: number;
  readonly etag: ETag;
}

export type GetResult = { readonly kind: 'object'; readonly body: Uint8Array; readonly etag: ETag } | { readonly kind: 'not-modified'; readonly etag: ETag };

/** A conditional write that did not happen because its condition did not hold. Not an error: it is the answer. */
export interface PreconditionFailed {
  readonly kind: 'precondition-failed';
}

export type PutResult = { readonly kind: 'written'; readonly etag: ETag } | PreconditionFailed;

export interface ObjectInfo {
  readonly key: string;
  readonly etag: ETag;
  readonly size: number;
  /** When the object was last written (the store's clock): maintenance keeps young objects for a grace period. */
  readonly lastModified: Date;
}

export interface PrefixListOptions {
  /** Continue after a page: pass the previous page's `next` (opaque). */
  after?: string;
  /** At most this many entries per page, at most 1000 (the default); a page may hold fewer prefixes. */
  limit?: number;
}

/** One page of the "directories" under a prefix. */
export interface PrefixPage {
  /** Distinct `<prefix><segment>/`, in ascending (UTF-8 byte) order. */
  readonly prefixes: readonly string[];
  /** Set when more may follow: the `after` of the next page. Opaque (an S3 continuation token). */
  readonly next?: string;
}

export interface ListPage {
  /** Keys in ascending (UTF-8 byte) order. */
  readonly items: readonly ObjectInfo[];
  /** Set when more keys may follow: the `startAfter` of the next page. */
  readonly next?: string;
}

/**
 * The bucket as the repository service uses it. Keys are relative to the store's bucket. Every call either
 * answers or throws: `StoreUnavailableError` when the store could not be reached within the retry budget
 * (the caller may retry later), `ChecksumMismatchError` when a body did not match its declared digest, and a
 * plain `Error` for anything a retry cannot fix (a permission error, a malformed request).
 */
export interface ObjectStore {
  /** The object, `not-modified` when `ifNoneMatch` still matches, or `undefined` when there is none. */
  get(key: string, options?: GetOptions): Promise<GetResult | undefined>;
  /**
   * The object as a stream, or `undefined` when there is none. Retries cover the request up to the answer's
   * headers; once the body flows, an interruption is an error on `body` (the caller answers or aborts).
   */
  getStream(key: string): Promise<ObjectStream | undefined>;
  /** The object's etag and size, or `undefined` when there is none. */
  head(key: string): Promise<ObjectInfo | undefined>;
  /** Writes the object, unconditionally or under `ifMatch` / `ifNoneMatch`; answers its new etag. */
  put(key: string, body: PutBody, options?: PutOptions): Promise<PutResult>;
  /** Removes the object; removing a missing object succeeds. */
  delete(key: string): Promise<void>;
  /** One page of the keys starting with `prefix`. */
  list(prefix: string, options?: ListOptions): Promise<ListPage>;
  /**
   * One page of the key segments directly under `prefix`, each up to and including its next `/` (S3's
   * ListObjectsV2 with `Delimiter: '/'`, its `CommonPrefixes`): `repos/` answers `repos/acme/`, `repos/zed/`.
   * Keys with no `/` after `prefix` are not listed. Walks every repository owner, not a hot path.
   */
  listPrefixes(prefix: string, options?: PrefixListOptions): Promise<PrefixPage>;
}

/** The singleton answer for a failed condition. */
export const PRECONDITION_FAILED: PreconditionFailed = Object.freeze({ kind: 'precondition-failed' });

/**
 * The object store did not answer (unreachable, timing out, throttling, 5xx) within the retry budget. The
 * operation may or may not have taken effect; retrying later is safe for every call of this port. Rendered by
 * the HTTP layer as 503 with `{ error: "store_unavailable", retryable: true }`.
 */
export class StoreUnavailableError extends PublicError {
  override readonly name = 'StoreUnavailableError';
  readonly code = 'store_unavailable';
  readonly retryable = true;
  readonly op: string;

  constructor(op: string, cause: unknown) {
    super(503, 'The object store is unavailable; retry later.', { 'retry-after': '5' });
    this.op = op;
    this.cause = cause;
  }
}

/** A body did not match the SHA-256 given in `PutOptions.sha256`; nothing was written. */
export class ChecksumMismatchError extends Error {
  override readonly name = 'ChecksumMismatchError';
  constructor(key: string) {
    super(`the body written to ${key} does not match its declared SHA-256`);
  }
}
