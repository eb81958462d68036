import { randomBytes } from 'node:crypto';
import { Stream, type StreamOptions } from './stream.ts';
import { TenantLock } from './tenant-lock.ts';

/** How a baton lookup ended: the stream, or why there is none. */
export type TakeResult = { stream: Stream } | { missing: 'unknown' | 'expired' };

/** Options of a `StreamRegistry`. */
export interface StreamRegistryOptions {
  /** A stream idle this long is closed (rolling back its transaction) and its baton expires. Default 10 s. */
  idleTimeoutMs?: number;
  /** How long a request waits for its tenant's lock held by another stream. Default 5 s. */
  lockTimeoutMs?: number;
  /** The clock; tests move it with fake timers. */
  now?: () => number;
}

// Expired batons are remembered so a late client learns STREAM_EXPIRED (retryable by starting over) rather than a
// bare "bad baton"; the memory is bounded in time and size.
const TOMBSTONE_MS = 10 * 60_000;
const MAX_TOMBSTONES = 10_000;

/**
 * The streams alive between requests, each parked under a baton. A baton is random (unguessable: it is the only
 * proof a request continues a stream) and used once: each response names the stream anew, so a replayed or
 * concurrent request with an old baton is refused.
 */
export class StreamRegistry {
  readonly idleTimeoutMs: number;
  readonly lockTimeoutMs: number;
  readonly #now: () => number;
  readonly #parked = new Map<string, { stream: Stream; since: number }>();
  readonly #expired = new Map<string, number>();
  readonly #locks = new Map<string, TenantLock>();

  constructor(options: StreamRegistryOptions = {}) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 10_000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 5_000;
    this.#now = options.now ?? (() => Date.now());
  }

  /** A new stream; it has no baton until parked. */
  create(options: StreamOptions): Stream {
    return new Stream(options);
  }

  /** Takes the stream parked under `baton` (the baton is spent). A baton of another tenant is unknown. */
  take(baton: string, tenant: string): TakeResult {
    this.sweep();
    const parked = this.#parked.get(baton);
    if (parked === undefined || parked.stream.tenant !== tenant) {
      return { missing: this.#expired.has(baton) ? 'expired' : 'unknown' };
    }
    this.#parked.delete(baton);
    return { stream: parked.stream };
  }

  /** Parks `stream` until its next request and returns its new baton. */
  park(stream: Stream): string {
    const baton = randomBytes(24).toString('base64url');
    this.#parked.set(baton, { stream, since: this.#now() });
    return baton;
  }

  /** The lock that serialises `tenant`'s streams. */
  lockFor(tenant: string): TenantLock {
    let lock = this.#locks.get(tenant);
    if (lock === undefined) {
      lock = new TenantLock();
      this.#locks.set(tenant, lock);
    }
    return lock;
  }

  /** Releases `stream`'s tenant lock unless its connection is inside a transaction. */
  releaseUnlessInTransaction(stream: Stream): void {
    if (!stream.closed && !stream.isAutocommit()) return;
    const lock = this.#locks.get(stream.tenant);
    lock?.release(stream);
    if (lock?.idle) this.#locks.delete(stream.tenant);
  }

  /** Closes streams idle past the timeout (rolling back and releasing their lock) and forgets old tombstones. */
  sweep(): void {
    const now = this.#now();
    for (const [baton, { stream, since }] of this.#parked) {
      if (now - since <= this.idleTimeoutMs) continue;
      this.#parked.delete(baton);
      stream.close();
      this.releaseUnlessInTransaction(stream);
      this.#expired.set(baton, now);
    }
    for (const [baton, at] of this.#expired) {
      if (now - at <= TOMBSTONE_MS && this.#expired.size <= MAX_TOMBSTONES) break;
      this.#expired.delete(baton);
    }
  }

  /** Closes every stream (shutdown). */
  closeAll(): void {
    this.closeTenant(null);
  }

  /**
   * Closes every parked stream of `tenant` (or of all tenants for null), rolling back their transactions: the
   * tenant is being deleted or closed. Their batons then answer as expired.
   */
  closeTenant(tenant: string | null): void {
    const now = this.#now();
    for (const [baton, { stream }] of this.#parked) {
      if (tenant !== null && stream.tenant !== tenant) continue;
      this.#parked.delete(baton);
      stream.close();
      this.releaseUnlessInTransaction(stream);
      this.#expired.set(baton, now);
    }
  }
}
