import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { SqlError } from '../sql/sql-error.ts';
import { TenantLock } from './tenant-lock.ts';

/**
 * A stream as the main process knows it: whose it is, whether it may write, and whether it left a transaction
 * open. Its SQL state (stored SQL, the transaction) lives where the tenant's SQL runs, under `id`.
 */
export class StreamHandle {
  readonly id = randomUUID();
  readonly tenant: string;
  readonly readOnly: boolean;
  inTransaction = false;
  closed = false;
  /** Why the server ended the stream (an in-place restore), for the client's next request on it. */
  endedBy: HranaEnd | undefined;

  constructor(tenant: string, readOnly: boolean) {
    this.tenant = tenant;
    this.readOnly = readOnly;
  }
}

/** A Hrana error the server ends streams with: what their next request answers. */
export interface HranaEnd {
  message: string;
  code: string;
}

/** How a baton lookup ended: the stream, or why there is none (`endedBy`: the server ended it, saying why). */
export type TakeResult = { stream: StreamHandle } | { missing: 'unknown' | 'expired'; endedBy?: HranaEnd };

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
 * concurrent request with an old baton is refused. Ending a stream is asked of `end` (the engine rolls back what
 * it left open); its tenant's lock is released once that is done.
 */
export class StreamRegistry {
  readonly idleTimeoutMs: number;
  readonly lockTimeoutMs: number;
  readonly #now: () => number;
  readonly #parked = new Map<string, { stream: StreamHandle; since: number }>();
  readonly #expired = new Map<string, { at: number; endedBy?: HranaEnd }>();
  readonly #locks = new Map<string, TenantLock>();
  /** Streams a WebSocket connection holds (they have no baton): closed with their tenant, or dropped with its shard. */
  readonly #held = new Set<StreamHandle>();
  #end: (stream: StreamHandle) => Promise<void> = async () => {};

  constructor(options: StreamRegistryOptions = {}) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 10_000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 5_000;
    this.#now = options.now ?? (() => Date.now());
  }

  /** Who ends streams where their SQL runs (the engine's `closeStream`). */
  endStreamsWith(end: (stream: StreamHandle) => Promise<void>): void {
    this.#end = end;
  }

  /** A new stream; it has no baton until parked. */
  create(tenant: string, readOnly: boolean): StreamHandle {
    return new StreamHandle(tenant, readOnly);
  }

  /** Takes the stream parked under `baton` (the baton is spent). A baton of another tenant is unknown. */
  take(baton: string, tenant: string): TakeResult {
    this.sweep();
    const parked = this.#parked.get(baton);
    if (parked === undefined || parked.stream.tenant !== tenant) {
      const expired = this.#expired.get(baton);
      if (expired === undefined) return { missing: 'unknown' };
      return expired.endedBy ? { missing: 'expired', endedBy: expired.endedBy } : { missing: 'expired' };
    }
    this.#parked.delete(baton);
    return { stream: parked.stream };
  }

  /** Registers a stream a WebSocket connection keeps open between requests (until `close`). */
  hold(stream: StreamHandle): void {
    this.#held.add(stream);
  }

  /** Parks `stream` until its next request and returns its new baton. */
  park(stream: StreamHandle): string {
    const baton = randomBytes(24).toString('base64url');
    this.#parked.set(baton, { stream, since: this.#now() });
    return baton;
  }

  /** Whether some stream of `tenant` is alive: parked between requests, or held by a WebSocket connection. */
  hasStreams(tenant: string): boolean {
    for (const { stream } of this.#parked.values()) if (stream.tenant === tenant) return true;
    for (const stream of this.#held) if (stream.tenant === tenant) return true;
    return false;
  }

  /** Whether a request or a stream of `tenant` holds its lock now, or waits for it: the database is in use. */
  isBusy(tenant: string): boolean {
    const lock = this.#locks.get(tenant);
    return lock !== undefined && !lock.idle;
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
  releaseUnlessInTransaction(stream: StreamHandle): void {
    if (!stream.closed && stream.inTransaction) return;
    const lock = this.#locks.get(stream.tenant);
    lock?.release(stream);
    if (lock?.idle) this.#locks.delete(stream.tenant);
  }

  /**
   * Ends `stream` where its SQL runs (rolling back its transaction), then releases its tenant's lock if it held
   * it. Resolves when both are done; never rejects (an engine that lost the stream has nothing left to roll back).
   */
  async close(stream: StreamHandle): Promise<void> {
    this.#held.delete(stream);
    if (stream.closed) return this.releaseUnlessInTransaction(stream);
    stream.closed = true;
    await this.#end(stream).catch(() => {});
    stream.inTransaction = false;
    this.releaseUnlessInTransaction(stream);
  }

  /** Closes streams idle past the timeout (rolling back and releasing their lock) and forgets old tombstones. */
  sweep(): void {
    const now = this.#now();
    for (const [baton, { stream, since }] of this.#parked) {
      if (now - since <= this.idleTimeoutMs) continue;
      this.#parked.delete(baton);
      void this.close(stream);
      this.#expired.set(baton, { at: now });
    }
    for (const [baton, { at }] of this.#expired) {
      if (now - at <= TOMBSTONE_MS && this.#expired.size <= MAX_TOMBSTONES) break;
      this.#expired.delete(baton);
    }
  }

  /** Closes every stream (shutdown). */
  closeAll(): Promise<void> {
    return this.closeTenants(() => true);
  }

  /**
   * Closes every stream (parked or held) of the tenants `affected` picks, rolling back their transactions: the tenant is
   * being deleted or closed. Their batons then answer as expired.
   */
  closeTenants(affected: (tenant: string) => boolean): Promise<void> {
    return this.#closeWhere((stream) => affected(stream.tenant));
  }

  /**
   * Rolls back every open transaction of `tenant` (an in-place restore replaces the data under it) by closing its
   * stream; the stream's next request answers `endedBy`. Streams outside a transaction carry on.
   */
  endTransactions(tenant: string, endedBy: HranaEnd): Promise<void> {
    return this.#closeWhere((stream) => stream.tenant === tenant && stream.inTransaction, endedBy);
  }

  /**
   * Runs `fn` holding `tenant`'s lock, taken ahead of every waiting request (an in-place restore). A stream inside
   * a transaction keeps the lock between its requests: its transaction is rolled back (answering `endedBy` next)
   * to hand the lock over. A request that held the lock when this asked may leave a new transaction open; the next
   * round rolls that back too.
   */
  async takeOver<T>(tenant: string, endedBy: HranaEnd, fn: () => Promise<T>): Promise<T> {
    const lock = this.lockFor(tenant);
    const owner = {};
    let held = false;
    const granted = lock
      .acquire(owner, 60_000, () => new SqlError('SQLITE_BUSY', `Tenant ${tenant} stayed locked`), { first: true })
      .then(() => {
        held = true;
      });
    while (!held) {
      await this.endTransactions(tenant, endedBy);
      await Promise.race([granted, delay(20)]);
    }
    try {
      return await fn();
    } finally {
      lock.release(owner);
    }
  }

  async #closeWhere(affected: (stream: StreamHandle) => boolean, endedBy?: HranaEnd): Promise<void> {
    const now = this.#now();
    const closing: Promise<void>[] = [];
    for (const [baton, { stream }] of this.#parked) {
      if (!affected(stream)) continue;
      this.#parked.delete(baton);
      closing.push(this.close(stream));
      this.#expired.set(baton, { at: now, ...(endedBy ? { endedBy } : {}) });
    }
    for (const stream of this.#held) {
      if (!affected(stream)) continue;
      stream.endedBy = endedBy;
      closing.push(this.close(stream));
    }
    await Promise.all(closing);
  }

  /**
   * Forgets the streams (parked or held) of the tenants `affected` picks without asking the engine: it lost them (a shard
   * restarted), with their transactions. Their locks are released and their batons answer as expired.
   */
  dropTenants(affected: (tenant: string) => boolean): void {
    const now = this.#now();
    for (const [baton, { stream }] of this.#parked) {
      if (!affected(stream.tenant)) continue;
      this.#parked.delete(baton);
      this.#drop(stream);
      this.#expired.set(baton, { at: now });
    }
    for (const stream of this.#held) if (affected(stream.tenant)) this.#drop(stream);
  }

  #drop(stream: StreamHandle): void {
    this.#held.delete(stream);
    stream.closed = true;
    stream.inTransaction = false;
    this.releaseUnlessInTransaction(stream);
  }
}
