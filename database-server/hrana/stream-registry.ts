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
  readonly project: string;
  readonly readOnly: boolean;
  closed = false;
  /**
   * A request runs on it now, holding its tenant's lock. A close meanwhile (a restore, the database closing) marks
   * it closed and leaves the rest to that request: it ends the stream where its SQL runs after its own statements
   * (never between two of them), then releases the lock (`runOnStream`, `runEnded`).
   */
  running = false;
  /** Closes waiting for the running request to end the stream. */
  readonly closers: Array<() => void> = [];
  /** Aborted when a close marks the stream while its request runs: a request still waiting for its shard's place gives it up. */
  readonly cancel = new AbortController();
  /** When its open transaction began (the time a request first left it open); absent outside one. */
  transactionSince: number | undefined;
  /** Why the server ended the stream (an in-place restore), for the client's next request on it. */
  endedBy: HranaEnd | undefined;

  constructor(tenant: string, project: string, readOnly: boolean) {
    this.tenant = tenant;
    this.project = project;
    this.readOnly = readOnly;
  }

  get inTransaction(): boolean {
    return this.transactionSince !== undefined;
  }
}

/** A Hrana error the server ends streams with: what their next request answers. */
export interface HranaEnd {
  message: string;
  code: string;
}

/** What a request on a stream the server ended answers, when it gave no other reason. */
export const STREAM_CLOSED: HranaEnd = { message: 'The stream was closed by the server', code: 'STREAM_CLOSED' };

/** How a baton lookup ended: the stream, or why there is none (`endedBy`: the server ended it, saying why). */
export type TakeResult = { stream: StreamHandle } | { missing: 'unknown' | 'expired'; endedBy?: HranaEnd };

/** Options of a `StreamRegistry`. */
export interface StreamRegistryOptions {
  /** A stream idle this long is closed (rolling back its transaction) and its baton expires. Default 10 s. */
  idleTimeoutMs?: number;
  /** How long a request waits for its tenant's lock held by another stream. Default 5 s. */
  lockTimeoutMs?: number;
  /**
   * A transaction open longer than this is rolled back when its stream next comes (or idles out), however busy
   * its client keeps it: an open transaction holds its database's lock and keeps its WAL from being checkpointed.
   * Default 5 min (what a WebSocket's transaction may last too).
   */
  transactionTimeoutMs?: number;
  /** Streams one project may have at once (running a request, parked for its next, or held by WebSockets); default 1,000. */
  maxStreamsPerProject?: number;
  /** The project a database belongs to; default: the database is its own project. */
  projectOf?: (tenant: string) => string;
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
  readonly transactionTimeoutMs: number;
  readonly maxStreamsPerProject: number;
  readonly #projectOf: (tenant: string) => string;
  /** Streams created and not ended yet (running a request, parked between requests, or held), by project. */
  readonly #alive = new Map<string, number>();
  readonly #counted = new WeakSet<StreamHandle>();
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
    this.transactionTimeoutMs = options.transactionTimeoutMs ?? 5 * 60_000;
    this.maxStreamsPerProject = options.maxStreamsPerProject ?? 1_000;
    this.#projectOf = options.projectOf ?? ((tenant) => tenant);
    this.#now = options.now ?? (() => Date.now());
  }

  /** Who ends streams where their SQL runs (the engine's `closeStream`). */
  endStreamsWith(end: (stream: StreamHandle) => Promise<void>): void {
    this.#end = end;
  }

  /**
   * A new stream (it has no baton until parked), or the error to answer when its project keeps
   * {@link maxStreamsPerProject} streams alive already.
   */
  create(tenant: string, readOnly: boolean): StreamHandle | HranaEnd {
    const project = this.#projectOf(tenant);
    if ((this.#alive.get(project) ?? 0) >= this.maxStreamsPerProject) {
      return {
        message: `This project keeps ${this.maxStreamsPerProject} streams open already; close some (a transaction's end, a WebSocket's close_stream) or let them expire`,
        code: 'TOO_MANY_STREAMS',
      };
    }
    const stream = new StreamHandle(tenant, project, readOnly);
    this.#counted.add(stream);
    this.#alive.set(project, (this.#alive.get(project) ?? 0) + 1);
    return stream;
  }

  /** A stream that ended where its SQL runs (a `close` request) and will not be parked: it no longer counts. */
  ended(stream: StreamHandle): void {
    this.#uncount(stream);
  }

  /** Notes what a request left `stream` with: a transaction open since when (`began`: one it began), or none. */
  ranOn(stream: StreamHandle, inTransaction: boolean, began = false): void {
    stream.transactionSince = inTransaction ? (began ? this.#now() : (stream.transactionSince ?? this.#now())) : undefined;
  }

  #uncount(stream: StreamHandle): void {
    if (!this.#counted.delete(stream)) return;
    const count = (this.#alive.get(stream.project) ?? 0) - 1;
    if (count > 0) this.#alive.set(stream.project, count);
    else this.#alive.delete(stream.project);
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
    if (this.overran(parked.stream)) {
      const endedBy = this.transactionTimedOut();
      this.#expired.set(baton, { at: this.#now(), endedBy });
      void this.close(parked.stream);
      return { missing: 'expired', endedBy };
    }
    return { stream: parked.stream };
  }

  /** Whether `stream` has had a transaction open longer than the limit (HTTP and WebSocket streams alike). */
  overran(stream: StreamHandle, now = this.#now()): boolean {
    return stream.transactionSince !== undefined && now - stream.transactionSince > this.transactionTimeoutMs;
  }

  /** What a stream whose transaction ran past the limit answers its next request. */
  transactionTimedOut(): HranaEnd {
    return { message: `The transaction was open longer than ${this.transactionTimeoutMs / 1000} s and was rolled back`, code: 'TRANSACTION_TIMEOUT' };
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

  /** A baton for a stream the server ended: its next request answers `endedBy`. */
  endedBaton(endedBy: HranaEnd): string {
    const baton = randomBytes(24).toString('base64url');
    this.#expired.set(baton, { at: this.#now(), endedBy });
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
    if (stream.running || (!stream.closed && stream.inTransaction)) return;
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
    this.#uncount(stream);
    if (stream.running) {
      // Its request ends it after its statements and releases the lock: this resolves then.
      stream.closed = true;
      stream.cancel.abort();
      return new Promise((resolve) => stream.closers.push(resolve));
    }
    if (stream.closed) return this.releaseUnlessInTransaction(stream);
    stream.closed = true;
    await this.#end(stream).catch(() => {});
    stream.transactionSince = undefined;
    this.releaseUnlessInTransaction(stream);
  }

  /** A request on `stream` has ended (`runOnStream`): its tenant's lock goes unless its transaction goes on, and the closes that waited resolve. */
  runEnded(stream: StreamHandle): void {
    stream.running = false;
    this.releaseUnlessInTransaction(stream);
    for (const resolve of stream.closers.splice(0)) resolve();
  }

  /** Closes streams idle past the timeout (rolling back and releasing their lock) and forgets old tombstones. */
  sweep(): void {
    const now = this.#now();
    for (const [baton, { stream, since }] of this.#parked) {
      const overran = this.overran(stream, now);
      if (now - since <= this.idleTimeoutMs && !overran) continue;
      this.#parked.delete(baton);
      void this.close(stream);
      this.#expired.set(baton, overran ? { at: now, endedBy: this.transactionTimedOut() } : { at: now });
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
    this.#uncount(stream);
    stream.closed = true;
    stream.transactionSince = undefined;
    this.releaseUnlessInTransaction(stream);
  }
}
