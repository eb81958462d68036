// The ObjectStore port on S3 (AWS, MinIO and other S3-compatible stores with conditional writes). The only
// module besides s3-buckets.ts and s3-bucket-notifications.ts (bucket administration) that imports the S3 SDK.
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { register as defaultRegistry, type Registry } from 'prom-client';
import {
  ChecksumMismatchError,
  PRECONDITION_FAILED,
  StoreUnavailableError,
  type GetOptions,
  type GetResult,
  type ListOptions,
  type ListPage,
  type ObjectInfo,
  type ObjectStore,
  type ObjectStream,
  type PrefixListOptions,
  type PrefixPage,
  type PutBody,
  type PutOptions,
  type PutResult,
} from './object-store.ts';
import { bodyLength, isStreamBody } from './put-body.ts';
import { DEFAULT_RETRY_POLICY, withRetries, type RetryPolicy } from './retry.ts';
import { classifyS3Error, type S3ErrorClass } from './s3-errors.ts';
import { s3ClientSettings, type S3Config } from './s3-config.ts';
import { storeMetrics, type StoreMetrics, type StoreOp, type StoreOutcome } from './store-metrics.ts';

export interface S3ObjectStoreOptions {
  config: S3Config;
  bucket: string;
  /** Where `service_store_*` metrics go; prom-client's default registry when absent. */
  registry?: Registry;
  retry?: RetryPolicy;
  /**
   * Deadline of one request carrying up to 1 MiB; bigger bodies get one more second per MiB (a GET learns its
   * size from the response headers and extends its deadline then). Default 30 s.
   */
  requestTimeoutMs?: number;
  /**
   * Connections the client opens at once (the SDK's default: 50); requests beyond them queue. Each store has a pool
   * of its own: writes that must not wait behind big transfers go through another store.
   */
  maxSockets?: number;
}

const MIB = 1024 * 1024;

/**
 * S3 behind the port. The SDK's own retries are off (`maxAttempts: 1`) so that every HTTP exchange is counted
 * here, in `service_store_requests_total{op,outcome}`, and retried here, with bounded full-jitter backoff,
 * counted in `service_store_retries_total{op}`. When the budget is spent on retryable errors the call throws
 * `StoreUnavailableError`. A retried conditional write can meet its own first attempt (a lost response): it
 * then answers `precondition-failed`, which callers of a write-ahead log must resolve by reading back.
 */
export class S3ObjectStore implements ObjectStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #metrics: StoreMetrics;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;

  constructor(options: S3ObjectStoreOptions) {
    const { config } = options;
    const pool = options.maxSockets === undefined ? {} : { requestHandler: { httpAgent: { maxSockets: options.maxSockets }, httpsAgent: { maxSockets: options.maxSockets } } };
    this.#client = new S3Client({ ...s3ClientSettings(config), ...pool, maxAttempts: 1 });
    this.#bucket = options.bucket;
    this.#metrics = storeMetrics(options.registry ?? defaultRegistry);
    this.#retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.#timeoutMs = options.requestTimeoutMs ?? 30_000;
  }

  async get(key: string, options: GetOptions = {}): Promise<GetResult | undefined> {
    return this.#request<GetResult | undefined>('get', 0, async (abortSignal, deadline) => {
      try {
        const res = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key, IfNoneMatch: options.ifNoneMatch }), { abortSignal });
        deadline.extendFor(res.ContentLength ?? 0);
        const body = (await res.Body?.transformToByteArray()) ?? new Uint8Array();
        return ['ok', { kind: 'object', body, etag: res.ETag ?? '' }];
      } catch (err) {
        const cls = classifyS3Error(err);
        if (cls === 'not_modified') return ['ok', { kind: 'not-modified', etag: options.ifNoneMatch ?? '' }];
        if (cls === 'not_found') return ['not_found', undefined];
        throw err;
      }
    });
  }

  async getStream(key: string): Promise<ObjectStream | undefined> {
    return this.#request<ObjectStream | undefined>('get', 0, async (abortSignal) => {
      try {
        const res = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }), { abortSignal });
        // In Node the SDK's body is the response's IncomingMessage: hand it on without buffering.
        if (!(res.Body instanceof Readable)) throw new Error(`GET ${key}: the S3 client returned no readable body`);
        return ['ok', { body: res.Body, size: res.ContentLength ?? 0, etag: res.ETag ?? '' }];
      } catch (err) {
        if (classifyS3Error(err) === 'not_found') return ['not_found', undefined];
        throw err;
      }
    });
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    return this.#request<ObjectInfo | undefined>('head', 0, async (abortSignal) => {
      try {
        const res = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }), { abortSignal });
        return ['ok', { key, etag: res.ETag ?? '', size: res.ContentLength ?? 0, lastModified: res.LastModified ?? new Date(0) }];
      } catch (err) {
        if (classifyS3Error(err) === 'not_found') return ['not_found', undefined];
        throw err;
      }
    });
  }

  async put(key: string, body: PutBody, options: PutOptions = {}): Promise<PutResult> {
    const length = bodyLength(body);
    return this.#request<PutResult>('put', length, async (abortSignal) => {
      try {
        const res = await this.#client.send(
          new PutObjectCommand({
            Bucket: this.#bucket,
            Key: key,
            Body: isStreamBody(body) ? body.open() : body,
            ContentLength: length,
            ContentType: options.contentType,
            IfMatch: options.ifMatch,
            IfNoneMatch: options.ifNoneMatch,
            ChecksumSHA256: options.sha256 === undefined ? undefined : Buffer.from(options.sha256, 'hex').toString('base64'),
          }),
          { abortSignal },
        );
        return ['ok', { kind: 'written', etag: res.ETag ?? '' }];
      } catch (err) {
        const cls = classifyS3Error(err);
        // If-Match on a missing object: S3 answers 404, the port answers "the object is not at that etag".
        if (cls === 'precondition_failed' || (cls === 'not_found' && options.ifMatch !== undefined)) {
          return ['precondition_failed', PRECONDITION_FAILED];
        }
        if (cls === 'checksum_mismatch') throw new ChecksumMismatchError(key);
        throw err;
      }
    });
  }

  async delete(key: string): Promise<void> {
    await this.#request<void>('delete', 0, async (abortSignal) => {
      try {
        await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }), { abortSignal });
        return ['ok', undefined];
      } catch (err) {
        if (classifyS3Error(err) === 'not_found') return ['ok', undefined];
        throw err;
      }
    });
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListPage> {
    return this.#request<ListPage>('list', 0, async (abortSignal) => {
      const res = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: prefix,
          StartAfter: options.startAfter,
          MaxKeys: Math.min(options.limit ?? 1000, 1000),
        }),
        { abortSignal },
      );
      const items = (res.Contents ?? []).map((o) => ({ key: o.Key ?? '', etag: o.ETag ?? '', size: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0) }));
      const last = items.at(-1);
      return ['ok', res.IsTruncated && last ? { items, next: last.key } : { items }];
    });
  }

  async listPrefixes(prefix: string, options: PrefixListOptions = {}): Promise<PrefixPage> {
    return this.#request<PrefixPage>('list', 0, async (abortSignal) => {
      // A continuation token, not StartAfter: every key under the last prefix sorts after that prefix, so
      // starting after it would answer it again.
      const res = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: prefix,
          Delimiter: '/',
          ContinuationToken: options.after,
          MaxKeys: Math.min(options.limit ?? 1000, 1000),
        }),
        { abortSignal },
      );
      const prefixes = (res.CommonPrefixes ?? []).flatMap((p) => (p.Prefix ? [p.Prefix] : []));
      return ['ok', res.IsTruncated && res.NextContinuationToken ? { prefixes, next: res.NextContinuationToken } : { prefixes }];
    });
  }

  /** Closes the client's connections. */
  destroy(): void {
    this.#client.destroy();
  }

  // One port call: attempts with a deadline each, every attempt counted, retryable failures retried.
  async #request<T>(op: StoreOp, bytes: number, attempt: (signal: AbortSignal, deadline: Deadline) => Promise<[StoreOutcome, T]>): Promise<T> {
    let failure: S3ErrorClass = 'fatal';
    return withRetries({
      policy: this.#retry,
      attempt: async () => {
        const deadline = new Deadline(this.#timeoutMs);
        deadline.extendFor(bytes);
        try {
          const [outcome, value] = await attempt(deadline.signal, deadline);
          this.#metrics.requests.inc({ op, outcome });
          return value;
        } catch (err) {
          failure = err instanceof ChecksumMismatchError ? 'checksum_mismatch' : classifyS3Error(err);
          this.#metrics.requests.inc({ op, outcome: failure === 'retryable' ? 'retryable_error' : 'error' });
          throw err;
        } finally {
          deadline.clear();
        }
      },
      classify: () => (failure === 'retryable' ? 'retryable' : 'fatal'),
      onRetry: () => this.#metrics.retries.inc({ op }),
      exhausted: (err) => new StoreUnavailableError(op, err),
    });
  }
}

/** An attempt's deadline: aborts its request when it passes; a known body size moves it later. */
class Deadline {
  readonly #controller = new AbortController();
  readonly #baseMs: number;
  #timer: NodeJS.Timeout;

  constructor(baseMs: number) {
    this.#baseMs = baseMs;
    this.#timer = this.#arm(baseMs);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** From now on, allow the base time plus one second per MiB of `bytes`. */
  extendFor(bytes: number): void {
    clearTimeout(this.#timer);
    this.#timer = this.#arm(this.#baseMs + Math.floor(bytes / MIB) * 1000);
  }

  clear(): void {
    clearTimeout(this.#timer);
  }

  #arm(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.#controller.abort(Object.assign(new Error(`no answer within ${ms} ms`), { name: 'TimeoutError' })), ms);
    timer.unref();
    return timer;
  }
}
