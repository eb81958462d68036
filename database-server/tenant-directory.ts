import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { bearerValue } from '../src/auth/bearer-value.ts';
import type { Logger } from '../src/logging/log.ts';
import { KeyedMutex } from '../src/collections/keyed-mutex.ts';
import { Semaphore } from '../src/collections/semaphore.ts';
import type { Refusal } from './hrana/http-server.ts';
import type { Committed, PipelineCaller } from './hrana/pipeline.ts';
import type { DatabaseEngine } from './shards/engine-port.ts';
import { engineFailure, SqlError } from './sql/sql-error.ts';
import type { TenantLimits } from './sql/sql-limits.ts';
import type { QuotaRefusal } from './sql/quota-refusal.ts';
import { databaseBytes, type StorageBudget } from './storage-budget.ts';
import { failedOnSize, quotaRefusal, reachedQuota } from './daily-quota.ts';
import type { PipelineOutcome } from './shards/engine-port.ts';
import type { StreamRegistry } from './hrana/stream-registry.ts';
import { MOVING } from './hrana/forward.ts';
import type { UsageMeter } from './sql/usage-meter.ts';
import { cappedLimits, effectiveLimits, engineLimits, type LimitPolicy } from './limit-policy.ts';
import type { Fencing, Replication, TenantReplicaPort } from './replication-port.ts';
import type { RequestedLimits, RestoreSource, TenantMeta, TenantMetaStore } from './tenant-meta.ts';
import { writeMeta, writeUsage, type RecordFence } from './fenced-records.ts';
import { TokenIndex } from './token-index.ts';
import { ShippingRounds, SHIPPING_AT_ONCE } from './shipping-rounds.ts';
import type { Entry } from './tenant-entry.ts';
import { clockPassed, restoreEntryInPlace } from './in-place-restore.ts';
import { closeIdleDatabases, type IdlePolicy } from './idle-closing.ts';
import type { OpenDatabases } from './open-databases.ts';
import { CopyUnavailableError, NoCapacityError, RestorePointUnavailableError, TenantNotFoundError, type DesiredTenant, type InPlaceRestore, type TenantDescription } from './tenant-admin-types.ts';
import { setTimeout as delay } from 'node:timers/promises';

/** How long after a failed base snapshot upload a new generation is started. */
const BASE_RETRY_MS = 1000;

/** Databases opened at once without a request (a start, a takeover, a shard's restart): each is closed again after. */
const OPENING_AT_ONCE = 32;

/** A database's metadata as `desired` changes it: limits not given go back to the default, a project not given stays. */
function updatedMeta(meta: TenantMeta, desired: DesiredTenant): TenantMeta {
  const { limits: _previous, ...rest } = meta;
  return { ...rest, tokens: desired.tokens, durability: desired.durability, ...projectField(desired.project ?? rest.project), ...limitsField(desired.limits) };
}

/** How long a handover or a stop waits for a snapshot upload under way before it frees the lease regardless. */
const SNAPSHOT_WAIT_ON_RELEASE_MS = 5_000;

/** What the directory needs of the leases when cw-db runs as several replicas (cluster/ownership.ts). */
export interface DirectoryCluster {
  /** This replica's name, shown as the database's owner. */
  readonly replica: string;
  /** Whether the lease of `tenant` is surely held (under `epoch`), by this process's clock. */
  surelyHeld(tenant: string, epoch?: number): boolean;
  /**
   * Whether a synchronous commit of `tenant` whose segment landed may be acknowledged: surely held, and the lease,
   * read after the segment landed, still the one this process wrote (one read for the commits waiting together).
   */
  confirm(tenant: string, epoch?: number): Promise<boolean>;
  /** Takes the lease of a database being created here; undefined when another replica holds it. */
  claim(tenant: string): Promise<Fencing | undefined>;
  /** The database was deleted (or its creation failed): its lease goes too, if it is the one this process surely holds. */
  forget(tenant: string): Promise<void>;
  /** A database that exists could not be opened here: its lease is released for another replica, its data kept. */
  giveUp(tenant: string): Promise<void>;
  /** Has the replica that owns `tenant` ship its commits (a copy of it as of now is made here); false: no such database. */
  shipElsewhere(tenant: string): Promise<boolean>;
}

/** A database created on a replica that could not take its lease: another one holds it (retry: the admin API routes there). */
export class NotOwnerError extends Error {
  override readonly name = 'NotOwnerError';
}

export interface TenantDirectoryOptions {
  engine: DatabaseEngine;
  /** The limits databases get, and the most they may ask for. */
  limitPolicy: LimitPolicy;
  streams: StreamRegistry;
  meter: UsageMeter;
  metas: TenantMetaStore;
  replication: Replication;
  log: Logger;
  now?: () => number;
  /** Several replicas: tenants are opened as their leases are taken (`adopt`), not all at `load`. */
  cluster?: DirectoryCluster;
  /** The engine's open connections (open-databases.ts), when idle ones are to be closed (`closeIdle`). */
  openDatabases?: OpenDatabases;
  /** What each project holds on this replica, when databases stop growing at its bounds (storage-budget.ts). */
  storage?: Pick<StorageBudget, 'freezeOf' | 'touched'>;
  /** Tenants shipping at once on the rounds (default {@link SHIPPING_AT_ONCE}). */
  shippingAtOnce?: number;
  /** How long a handover or stop waits for a snapshot under way (default {@link SNAPSHOT_WAIT_ON_RELEASE_MS}). */
  snapshotWaitOnReleaseMs?: number;
}

/**
 * The tenants this cw-db serves: their metadata (kept in the bucket), tokens, local files and replicas. A
 * tenant's data is on the local disk before it is answered for: restored from the bucket when the disk lost it.
 * Changes to one tenant (create, update, delete) run one at a time.
 */
export class TenantDirectory {
  readonly #options: TenantDirectoryOptions;
  readonly #now: () => number;
  readonly #tenants = new Map<string, Entry>();
  readonly #tokens = new TokenIndex();
  readonly #changes = new KeyedMutex();
  readonly #opening = new Semaphore(OPENING_AT_ONCE);
  /** The timer's uploads of every tenant's commits, a bounded number at once, projects in turn. */
  readonly #shipping: ShippingRounds;
  /** Several replicas: databases whose lease expired here, their local files kept, with that lease's epoch. */
  readonly #kept = new Map<string, number>();
  /** How the tenants' records are written: over the version read, by the owner only (fenced-records.ts). */
  readonly #fence: RecordFence;

  constructor(options: TenantDirectoryOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => Date.now());
    this.#shipping = new ShippingRounds(this.#tenants, options.shippingAtOnce ?? SHIPPING_AT_ONCE, options.log);
    this.#fence = { metas: options.metas, confirmOwner: (entry) => this.#confirmOwner(entry) };
    options.engine.onRestart((affected) => this.#restarted(affected));
  }

  /** Loads every tenant of the bucket; each is answered for once its own restore finished. */
  async load(): Promise<void> {
    for (const { value: meta, etag } of await this.#options.metas.list()) {
      const entry: Entry = { meta, metaEtag: etag, ready: Promise.resolve() };
      entry.ready = this.#openStored(entry, { rest: true });
      entry.ready.catch((err: unknown) => this.#options.log.error('opening a tenant failed', { tenant: meta.tenant, err }));
      this.#tenants.set(meta.tenant, entry);
      this.#tokens.set(meta);
    }
  }

  /** Every tenant's open promise, for a start that waits until all are served. */
  async whenAllReady(): Promise<void> {
    await Promise.allSettled([...this.#tenants.values()].map((e) => e.ready));
  }

  /** The Hrana server's gate: the bearer token names the tenant (and must match a tenant in the path). */
  authorize(request: IncomingMessage, pathTenant: string | null): Promise<PipelineCaller | Refusal> {
    return this.authorizeToken(bearerValue(request.headers.authorization), pathTenant);
  }

  /** The database a valid token of a tenant served here opens (several replicas: routing by token). */
  tenantOfToken(token: string): string | undefined {
    return this.#tokens.find(token, this.#now())?.tenant;
  }

  /** The database served here that a token hashing to `sha256` opens (another replica routing a request by token). */
  tenantOfTokenHash(sha256: string): string | undefined {
    return this.#tokens.findHash(sha256, this.#now())?.tenant;
  }

  /** The same gate for a token given otherwise (a WebSocket's hello). */
  async authorizeToken(token: string | undefined, pathTenant: string | null): Promise<PipelineCaller | Refusal> {
    // A deleted (or never created) database answers 404 whatever the token: its endpoint is gone.
    if (pathTenant !== null && !this.#tenants.has(pathTenant)) return { status: 404, code: 'TENANT_NOT_FOUND', message: 'No such database' };
    if (token === undefined) return { status: 401, code: 'UNAUTHORIZED', message: 'A database token is required (Authorization: Bearer <database_token>, or the hello of a WebSocket)' };
    const holder = this.#tokens.find(token, this.#now());
    const deleted = holder === undefined ? this.#tokens.deletedTenant(token) : undefined;
    if (deleted !== undefined && (pathTenant === null || pathTenant === deleted)) return { status: 404, code: 'TENANT_NOT_FOUND', message: 'The database was deleted' };
    if (holder === undefined) return { status: 401, code: 'UNAUTHORIZED', message: 'The database token is not valid (unknown, rotated or expired)' };
    if (pathTenant !== null && pathTenant !== holder.tenant) return { status: 403, code: 'FORBIDDEN', message: 'The database token is not valid for this database' };
    const entry = this.#tenants.get(holder.tenant);
    if (entry === undefined) return { status: 404, code: 'TENANT_NOT_FOUND', message: 'No such database' };
    try {
      await entry.ready;
    } catch (err) {
      if (err instanceof CopyUnavailableError) return { status: 503, code: 'DATABASE_UNAVAILABLE', message: err.message };
      return { status: 503, code: 'DATABASE_UNAVAILABLE', message: 'The database could not be restored; the operator is told' };
    }
    return { tenant: holder.tenant, readOnly: holder.readOnly };
  }

  /**
   * Creates the tenant, or brings an existing one's tokens, durability and limits to `desired`.
   *
   * @throws LimitOutOfRangeError when `desired` asks for more than cw-db allows (nothing changes then).
   */
  ensure(tenant: string, desired: DesiredTenant): Promise<{ created: boolean }> {
    const limits = effectiveLimits(desired.limits, this.#options.limitPolicy);
    return this.#changes.run(tenant, async () => {
      const existing = this.#tenants.get(tenant);
      if (existing) {
        // A copy a start could not make (a single replica: its load failed) is made now; one that serves is not marked.
        if (existing.meta.creating) existing.ready = existing.ready.catch(() => this.#openStored(existing, {}));
        await existing.ready;
        const before = existing.meta;
        if (JSON.stringify(updatedMeta(before, desired)) !== JSON.stringify(before)) {
          try {
            await writeMeta(existing, (meta) => updatedMeta(meta, desired), this.#fence);
            // Answered only if this replica still owns the database once the write landed: a successor reads the
            // metadata after its takeover, so after this read, and holds the change (as for a synchronous commit).
            await this.#confirmOwner(existing);
          } finally {
            // What was written, or what another write left when this one was refused.
            this.#tokens.set(existing.meta);
          }
        }
        if (JSON.stringify(existing.meta.limits) !== JSON.stringify(before.limits)) {
          await this.#options.engine.open(tenant, engineLimits(limits));
          // A new size quota is tried afresh: the next write that fails on it says so again.
          this.#options.meter.sizeQuota(tenant, false);
        }
        return { created: false };
      }
      if (desired.restoreFrom) await this.#checkRestorePoint(desired.restoreFrom);
      const fencing = this.#options.cluster ? await this.#options.cluster.claim(tenant) : undefined;
      if (this.#options.cluster && !fencing) throw new NotOwnerError(`Another replica owns ${tenant}`);
      // Under its lease a new database starts empty, following nothing in the bucket: what is there under its id
      // was left by a deleted one (review-164 F2). Unless its metadata is there: it exists, handed over from here a
      // moment ago while this request waited (review-164 F6), and is restored as any takeover (a copy too: made
      // again, it would cut what was written to it since), and a failure to open it here must leave it whole for
      // another replica (review-174 R5). A copy whose metadata still says it was not made is made now (R2).
      const version = fencing !== undefined ? await this.#options.metas.read(tenant) : undefined;
      const stored = version?.value;
      const standing = stored?.creating === undefined ? stored : undefined;
      const restoreFrom = standing ? undefined : (desired.restoreFrom ?? stored?.creating?.restoreFrom);
      const fresh = fencing !== undefined && standing === undefined && restoreFrom === undefined;
      const meta: TenantMeta = standing
        ? updatedMeta(standing, desired)
        : {
            tenant,
            createdAt: this.#now(),
            durability: desired.durability,
            tokens: desired.tokens,
            ...projectField(desired.project),
            ...(restoreFrom ? { restoredFrom: restoreFrom, creating: { restoreFrom } } : {}),
            ...limitsField(desired.limits),
          };
      // A creation cuts every lower epoch before its metadata says it exists: written after, a crash between the two
      // left a retry restoring the deleted database's leftovers (review-174 R1).
      if (fresh && fencing) {
        fencing.guard();
        await this.#options.replication.recordTakeover(tenant, fencing.epoch, null);
      }
      // Under a lease, written over the version read (none: where none is), as any write of it (fenced-records.ts).
      const entry: Entry = { meta, ready: Promise.resolve(), ...(fencing ? { fencing, metaEtag: version?.etag ?? null } : {}) };
      // The metadata first: from here on a restart knows the tenant (and restores or re-creates it). Not written,
      // the lease goes (no round walks a tenant without metadata, so nothing else would give it up), unless another
      // replica owns the database now: forget deletes only the lease this process surely holds, so one lapsed here
      // (the guard's LeaseLostError, a bucket failing past the deadline) and taken by another replica stays its.
      await writeMeta(entry, () => meta, this.#fence).catch(async (err: unknown) => {
        if (fencing && !(err instanceof NotOwnerError)) await (standing ? this.#options.cluster?.giveUp(tenant) : this.#options.cluster?.forget(tenant))?.catch(() => undefined);
        throw err;
      });
      entry.ready = restoreFrom ? this.#copy(entry, restoreFrom) : this.#open(entry, undefined, { fresh });
      this.#tenants.set(tenant, entry);
      try {
        await entry.ready;
      } catch (err) {
        this.#tenants.delete(tenant);
        // The connection goes with the files: left open, it would serve the deleted file to the next attempt (which
        // could then snapshot nothing, or ship nothing of what it serves). A base upload still going would land
        // after the deletion.
        await this.#options.engine.closeTenant(tenant).catch(() => {});
        await entry.baseUpload?.catch(() => {});
        if (standing) {
          // It was there before this request: its data stays, and its lease goes to a replica that can open it.
          await this.#removeLocalFiles(tenant).catch(() => {});
          await this.#options.cluster?.giveUp(tenant);
        } else if (fencing && !this.#options.cluster?.surelyHeld(tenant, fencing.epoch)) {
          // The lease went while it opened: another replica may have taken the database over (its metadata says it
          // exists) and serve it, so what the bucket holds is no longer this creation's to delete. Left as it is, a
          // half-made creation is adopted as any database (it follows nothing before it), and a retried PUT finds it.
          await this.#removeLocalFiles(tenant).catch(() => {});
        } else {
          await this.#deleteEverywhere(tenant);
          await this.#options.cluster?.forget(tenant);
        }
        // The engine's own report of it (a code, or the package's JSON in the message) as from any statement.
        if (engineFailure(err).code === 'SQLITE_NOMEM') {
          throw new NoCapacityError('This cw-db has no memory left to open another database in its shard (CW_DB_SHARD_MEMORY_MIB); give it more shards, memory or replicas');
        }
        throw err;
      }
      this.#tokens.set(entry.meta);
      return { created: true };
    });
  }

  /**
   * Restores the tenant IN PLACE to its state at `at` (within its restore window), keeping its tokens and endpoint.
   * The past state is rebuilt beside the live file first; then, holding the tenant lock ahead of every waiting
   * request, open transactions are rolled back (their next request answers DATABASE_RESTORED), every acknowledged
   * commit is shipped (so the undo point holds it), the file is swapped and a new generation starts from it.
   * Requests that arrive meanwhile wait for the lock as for any transaction (5 s, then SQLITE_BUSY) and run on the
   * restored data.
   *
   * `request` names the request (the operator's annotation value): asked again, as after an operator restart
   * before it recorded the answer, it answers the restore already done instead of restoring a second time.
   *
   * @throws TenantNotFoundError, RestorePointUnavailableError (outside the window; the message names it)
   */
  restoreInPlace(tenant: string, at: number, request?: string): Promise<InPlaceRestore> {
    return this.#changes.run(tenant, async () => {
      const entry = this.#tenants.get(tenant);
      if (!entry) throw new TenantNotFoundError(`No database ${tenant}`);
      await entry.ready;
      const { engine, replication, streams, log } = this.#options;
      return restoreEntryInPlace(entry, at, request, {
        engine,
        replication,
        streams,
        fence: this.#fence,
        log,
        now: this.#now,
        limitsOf: (meta) => this.#limitsOf(meta),
        newReplica: () => this.#newReplica(entry),
      });
    });
  }

  /**
   * The project `tenant` is in, for sharing a shard out between projects; a tenant created before cw-db knew
   * projects, or not known here, is a project of its own.
   */
  projectOf(tenant: string): string {
    return this.#tenants.get(tenant)?.meta.project ?? tenant;
  }

  /** The tenants this replica serves (for the storage budget's rounds). */
  tenantNames(): IterableIterator<string> {
    return this.#tenants.keys();
  }

  /** The tenant's figures, or undefined when it does not exist. */
  async describe(tenant: string): Promise<TenantDescription | undefined> {
    const entry = this.#tenants.get(tenant);
    if (entry === undefined) return undefined;
    const path = this.#options.engine.databasePath(tenant);
    const usage = this.#options.meter.get(tenant);
    const limits = this.#limitsOf(entry.meta);
    const freeze = this.#options.storage?.freezeOf(tenant);
    return {
      tenant,
      createdAt: entry.meta.createdAt,
      durability: entry.meta.durability,
      sizeBytes: await databaseBytes(path),
      rowsRead: usage.rowsRead,
      rowsWritten: usage.rowsWritten,
      lastWriteAt: usage.lastWriteAt,
      restoreWindow: await this.#options.replication.window(tenant),
      ...(entry.meta.restoredFrom ? { restoredFrom: entry.meta.restoredFrom } : {}),
      ...(this.#options.cluster ? { replica: this.#options.cluster.replica } : {}),
      ...(entry.meta.project !== undefined ? { project: entry.meta.project } : {}),
      limits,
      today: usage.today,
      limitReached: reachedQuota(limits, usage, freeze),
      ...(freeze ? { growthFreeze: freeze } : {}),
      ...(this.#options.openDatabases ? { open: this.#options.openDatabases.isOpen(tenant) } : {}),
    };
  }

  /** The pipeline's quota gate: what the tenant's daily quotas refuse now (nothing for a tenant not here). */
  quotaRefusal(tenant: string): QuotaRefusal | undefined {
    const entry = this.#tenants.get(tenant);
    if (entry === undefined) return undefined;
    return quotaRefusal(this.#limitsOf(entry.meta), this.#options.meter.get(tenant), this.#now());
  }

  /**
   * The pipeline's afterRequest: a write that failed on the size quota marks it reached; one that wrote clears it.
   * Any request may have changed the size of the database's files (DDL, `CREATE TABLE … AS`, VACUUM and script
   * requests report no rows), which the storage budget measures at its next round.
   */
  afterRequest(tenant: string, outcome: PipelineOutcome): void {
    if (failedOnSize(outcome.results)) this.#options.meter.sizeQuota(tenant, true, this.#options.storage?.freezeOf(tenant) !== undefined);
    else if (outcome.counts.rowsWritten > 0) this.#options.meter.sizeQuota(tenant, false);
    this.#options.storage?.touched(tenant);
  }

  /**
   * Why a request let in for `tenant` may not run after all: the database was deleted, or (several replicas) moved
   * to another replica, since its caller was checked. Nothing when it is served here.
   */
  unserved(tenant: string): { message: string; code: string } | undefined {
    if (this.#tenants.has(tenant)) return undefined;
    return this.#options.cluster ? MOVING : { message: 'The database was deleted', code: 'TENANT_NOT_FOUND' };
  }

  /** Deletes the tenant: its tokens stop at once, then its streams, local files and bucket data go. */
  delete(tenant: string): Promise<void> {
    return this.#changes.run(tenant, async () => {
      const entry = this.#tenants.get(tenant);
      this.#tokens.remove(tenant, { deleted: true });
      this.#tenants.delete(tenant);
      if (entry) {
        await entry.ready.catch(() => {});
        await this.#options.streams.closeTenants((t) => t === tenant);
        await this.#closeForGood(tenant, entry);
        // Whatever was captured is shipped, and the base snapshot is up, before the data is deleted, so no upload
        // lands after the deletion.
        await entry.replica?.flush().catch(() => {});
        await entry.baseUpload?.catch(() => {});
        await entry.shipping;
        await entry.snapshotUpload;
      }
      this.#kept.delete(tenant);
      await this.#deleteEverywhere(tenant);
      await this.#options.cluster?.forget(tenant);
    });
  }

  /**
   * Several replicas: opens a tenant whose lease this replica just took, restored from the bucket (the local file,
   * if any, may be older than what another replica wrote since). `resumed` (cluster/ownership.ts says when): the
   * lease continues this process's own of that epoch, unwritten since it expired, so the files that expiry kept
   * are the latest state and are opened instead. Answers false when the tenant no longer exists.
   */
  adopt(tenant: string, fencing: Fencing, resumed?: number): Promise<boolean> {
    return this.#changes.run(tenant, async () => {
      const stored = await this.#options.metas.read(tenant);
      const kept = resumed !== undefined && this.#kept.get(tenant) === resumed;
      if (stored === undefined) {
        await this.#discardKept(tenant);
        return false;
      }
      const meta = stored.value;
      const entry: Entry = { meta, metaEtag: stored.etag, ready: Promise.resolve(), fencing };
      entry.ready = this.#openStored(entry, { rest: true, kept });
      this.#tenants.set(tenant, entry);
      this.#tokens.set(meta);
      try {
        await entry.ready;
      } catch (err) {
        if (err instanceof CopyUnavailableError) {
          // Given up here, the next replica would fail the same, and the next, round after round: it is held here
          // instead, its requests and the operator's PUT answered why, until it is deleted (review-178 L3).
          this.#options.log.error('a copy can no longer be made; it answers so until it is deleted', { tenant, err });
          await this.#options.engine.closeTenant(tenant).catch(() => {});
          await this.#removeLocalFiles(tenant).catch(() => {});
          return true;
        }
        this.#tenants.delete(tenant);
        this.#tokens.remove(tenant);
        const closed = await this.#options.engine.closeTenant(tenant).then(
          () => true,
          () => false,
        );
        // The lease expired again before the files were taken up (the bucket still failing): they are still the
        // latest state, now under this epoch's lease, which names this process.
        if (kept && !this.#options.cluster?.surelyHeld(tenant, fencing.epoch)) this.#kept.set(tenant, fencing.epoch);
        // Otherwise nothing will open what the failed opening left (a whole restore, perhaps): a later owner here
        // restores again, so it would stay on the disk, counted nowhere (review-164 F12).
        else if (closed) await this.#removeLocalFiles(tenant);
        throw err;
      }
      return true;
    });
  }

  /** Several replicas: removes the files an expired lease kept, of no use now (another replica took the database). */
  discard(tenant: string): Promise<void> {
    return this.#changes.run(tenant, () => this.#discardKept(tenant));
  }

  async #discardKept(tenant: string): Promise<void> {
    if (!this.#kept.delete(tenant) || this.#tenants.has(tenant)) return;
    await this.#removeLocalFiles(tenant);
  }

  /** Removes the tenant's database file and its WAL and shared memory; never while a connection has them open. */
  async #removeLocalFiles(tenant: string): Promise<void> {
    const path = this.#options.engine.databasePath(tenant);
    await Promise.all([path, `${path}-wal`, `${path}-shm`].map((file) => rm(file, { force: true })));
  }

  /**
   * Several replicas: closes a tenant this replica no longer owns. A `handover` or `stop` ships what is pending first
   * (the lease is still held); `lost` and `expired` ship nothing (a successor may already be writing). The local
   * files go (the next owner here restores from the bucket), but for `expired`: the lease expired here with nobody
   * known to have taken it (the bucket unreachable), and its files, holding what was not shipped, are kept for
   * this process taking it back (`adopt` with `resumed`) until another replica is seen to have taken it (`discard`).
   */
  release(tenant: string, reason: 'handover' | 'stop' | 'lost' | 'expired'): Promise<void> {
    return this.#changes.run(tenant, async () => {
      const entry = this.#tenants.get(tenant);
      if (entry === undefined) return;
      this.#tokens.remove(tenant);
      this.#tenants.delete(tenant);
      await entry.ready.catch(() => {});
      await this.#options.streams.closeTenants((t) => t === tenant);
      let closed = false;
      const shipping = reason === 'handover' || reason === 'stop';
      try {
        // Shipped while the connection is open: closing it checkpoints and deletes the WAL that queued commits
        // are read from as they upload.
        const ship = async () => {
          await entry.replica?.capture();
          await entry.replica?.flush();
        };
        await this.#closeForGood(tenant, entry, shipping ? ship : undefined);
        closed = true;
        if (shipping) {
          await entry.baseUpload;
          // A snapshot under way lands before the lease is freed, as a rule (review-164 F2; a round's shipping still
          // going may start one yet), but for a bounded time: a large one takes minutes, past a pod's grace period, and
          // the next owner's higher epoch cuts it if it lands later (review-174 R3).
          const landed = (async () => {
            await entry.shipping;
            await entry.snapshotUpload;
          })();
          await Promise.race([landed.catch(() => {}), delay(this.#options.snapshotWaitOnReleaseMs ?? SNAPSHOT_WAIT_ON_RELEASE_MS, undefined, { ref: false })]);
          await writeUsage(entry, this.#options.meter.get(tenant), this.#fence);
        }
      } finally {
        this.#options.meter.forget(tenant);
        // Even when shipping failed: the next owner restores from the bucket, what did not reach it is lost as
        // with a lost disk (nothing acknowledged in sync mode, at most a flush interval in async mode). Never
        // under a connection still open: its writes would go to files no one reads, and a later adopt here would
        // be handed that connection.
        if (closed && reason === 'expired' && entry.fencing) this.#kept.set(tenant, entry.fencing.epoch);
        else if (closed) await this.#removeLocalFiles(tenant);
      }
    });
  }

  /** Ships what the tenant committed, its base snapshot included (another replica copies it as of now); false: not here. */
  async ship(tenant: string): Promise<boolean> {
    const entry = this.#tenants.get(tenant);
    if (entry === undefined) return false;
    await entry.ready;
    await entry.baseUpload;
    await entry.replica?.flush();
    return true;
  }

  /**
   * The pipeline's afterCommit, under the tenant lock (held until it settles): queues what was committed, and past
   * the WAL's bound ships and checkpoints before it lets go; in sync mode the answer waits until it is shipped
   * (`durable`, which needs no lock). After a request that left a transaction open (`inTransaction`) no checkpoint
   * can run: past the bound, `walFull` asks for that transaction to end.
   */
  async afterCommit(tenant: string, after: { inTransaction?: boolean; rolledBack?: boolean } = {}): Promise<Committed> {
    const entry = this.#tenants.get(tenant);
    // The replica that captured the commit ships it (a restore in place may give the tenant another meanwhile).
    const replica = entry?.replica;
    const stamp = await replica?.capture();
    if (entry === undefined || replica === undefined) return {};
    // The commit stands either way: a bucket that cannot be reached fails the next round's maintain too, which logs it.
    // Also with nothing new captured when a transaction was just rolled back for the bound (`walFull`): it lets the
    // WAL be emptied now. Not after a read: during a bucket outage it would wait for the uploads that fail.
    if ((stamp !== undefined && !after.inTransaction) || after.rolledBack) await replica.boundLocked().catch(() => {});
    if (stamp === undefined) return {};
    this.#options.meter.committed(tenant, stamp);
    const walFull = after.inTransaction === true && replica.pastWalBound;
    if (entry.meta.durability !== 'sync') return walFull ? { walFull } : {};
    const cluster = this.#options.cluster;
    // Acknowledged only if the lease, read once the segment landed, is still this process's: a successor lists the
    // bucket after its takeover, so after that read, and restores every segment acknowledged (cluster/README.md).
    // Under the lease it was captured under: lost and taken back meanwhile, the new epoch's owner (this process, at
    // a new epoch) listed the bucket without this commit's segment, which is then never restored.
    const durable = replica.flush().then(async () => {
      if (cluster && (!(await cluster.confirm(tenant, entry.fencing?.epoch)) || this.#tenants.get(tenant) !== entry)) {
        throw new NotOwnerError(`The lease of ${tenant} was lost before the commit was acknowledged`);
      }
    });
    return walFull ? { durable, walFull } : { durable };
  }

  /** Ships every `ms` (cw-db's flush interval), a bounded number at once (`ShippingRounds.every`). */
  shipEvery(ms: number): { stop(): void } {
    return this.#shipping.every(ms);
  }

  /** Ships every tenant's pending commits, each once (`ShippingRounds.flushAll`). */
  flushAll(): Promise<void> {
    return this.#shipping.flushAll();
  }

  /** Closes the connections of databases idle or past their shard's bound of open ones (`closeIdleDatabases`). */
  closeIdle(policy: IdlePolicy): Promise<number> {
    const open = this.#options.openDatabases;
    if (!open) return Promise.resolve(0);
    const { engine, streams, log } = this.#options;
    const locked = <T>(tenant: string, fn: () => Promise<T>) => this.#locked(tenant, fn);
    return closeIdleDatabases({ tenants: this.#tenants, changes: this.#changes, locked, open, engine, streams, log, now: this.#now() }, policy);
  }

  /**
   * Saves the usage counters of tenants that ran statements since the last save. One tenant's failure (its lease lost
   * meanwhile, the bucket refusing its write) is logged and tried again next time; it stopped the save of every tenant
   * after it (review-178 L5).
   */
  async saveUsage(saved: Map<string, string>): Promise<void> {
    for (const [tenant, entry] of this.#tenants) {
      const usage = this.#options.meter.get(tenant);
      const text = JSON.stringify(usage);
      // Not for a database this replica is losing: its next owner counts from here on.
      if (saved.get(tenant) === text || (entry.fencing && !this.#options.cluster?.surelyHeld(tenant, entry.fencing.epoch))) continue;
      try {
        await writeUsage(entry, usage, this.#fence);
        saved.set(tenant, text);
      } catch (err) {
        this.#options.log.warn('saving the usage counters failed; tried again at the next save', { tenant, err });
      }
    }
  }

  /** Prunes every tenant's bucket copies older than the retention. */
  async prune(retentionMs: number): Promise<void> {
    for (const tenant of this.#tenants.keys()) await this.#options.replication.prune(tenant, retentionMs);
  }

  /** Ships what is pending and closes every connection (shutdown). */
  async close(): Promise<void> {
    await this.#options.streams.closeAll();
    await this.flushAll();
    // Closing checkpoints into the files, which a generation's base copy may still be reading.
    await Promise.all([...this.#tenants.values()].map((entry) => entry.replica?.whenCopied() ?? Promise.resolve()));
    await this.#options.engine.close();
  }

  /** Opens a database its metadata describes; a copy still marked as not made (`creating`) is made again instead. */
  #openStored(entry: Entry, options: { rest?: boolean; kept?: boolean }): Promise<void> {
    const creating = entry.meta.creating;
    if (creating === undefined) return this.#open(entry, undefined, options);
    const { tenant, at } = creating.restoreFrom;
    this.#options.log.warn('making again a copy whose creation did not finish', { tenant: entry.meta.tenant, from: tenant });
    return this.#copy(entry, creating.restoreFrom, options.rest === undefined ? {} : { rest: options.rest }).catch((err: unknown) => {
      if (!(err instanceof RestorePointUnavailableError)) throw err;
      throw new CopyUnavailableError(`This copy of ${tenant} as of ${new Date(at).toISOString()} was not finished and can no longer be made (${err.message}); delete the database`);
    });
  }

  /**
   * Makes a copy (restore_from) and settles once its base snapshot is in the bucket, its metadata's `creating` mark
   * cleared: until then the copy is only on this disk, and a next owner, which never trusts a local file, would open
   * it empty (review-174 R2). No request is served before: its caller is answered only then, and a request waits for
   * `ready`.
   */
  async #copy(entry: Entry, restoreFrom: RestoreSource, options: { rest?: boolean } = {}): Promise<void> {
    await this.#open(entry, restoreFrom, options);
    await entry.baseUpload;
    await writeMeta(entry, ({ creating: _made, ...made }) => made, this.#fence);
  }

  /** Throws unless this replica still owns the tenant, its lease read again (several replicas); one cw-db always does. */
  async #confirmOwner(entry: Entry): Promise<void> {
    const cluster = this.#options.cluster;
    if (cluster === undefined) return;
    const owned = await cluster.confirm(entry.meta.tenant, entry.fencing?.epoch).catch(() => false);
    if (!owned) throw new NotOwnerError(`${entry.meta.tenant} is not surely owned by this replica any more`);
  }

  /**
   * Brings the tenant's file to the local disk (restored if need be), opens it and starts its generation. With `rest`
   * (a start, a takeover: no request is waiting) its connection is closed again right after, as an idle one is, at
   * most OPENING_AT_ONCE at a time: a replica may own more databases than its shards' memory could hold open at once.
   */
  async #open(entry: Entry, restoreFrom: RestoreSource | undefined, options: { rest?: boolean; kept?: boolean; fresh?: boolean } = {}): Promise<void> {
    const { engine, replication, metas, meter } = this.#options;
    const tenant = entry.meta.tenant;
    const path = engine.databasePath(tenant);
    const fencing = entry.fencing;
    this.#kept.delete(tenant);
    if (fencing && options.kept && existsSync(path)) {
      // The files this process kept when its lease expired, taken back under the next epoch of that same lease
      // (nobody else held it in between: `adopt`): what the bucket holds came from them, so they are the latest
      // state. The takeover record follows the end of the bucket's history (all of it in these files), cutting what
      // the expired epoch still uploads; the new generation's base snapshot ships what was never shipped.
      fencing.guard();
      await replication.recordTakeover(tenant, fencing.epoch, await replication.historyEnd(tenant));
      this.#options.log.info('took a database back from the files kept when its lease expired', { tenant, epoch: fencing.epoch });
    } else if (restoreFrom || fencing || !existsSync(path)) {
      // Under a lease the local file is otherwise never trusted: another replica may have written the tenant since.
      await Promise.all([rm(`${path}-wal`, { force: true }), rm(`${path}-shm`, { force: true })]);
      if (fencing) await rm(path, { force: true });
      if (restoreFrom) {
        await this.#tenants.get(restoreFrom.tenant)?.replica?.flush();
        const restored = await replication.restore(restoreFrom.tenant, path, restoreFrom.at, { asked: true });
        if (restored === null) throw new RestorePointUnavailableError(`Nothing of ${restoreFrom.tenant} is in the bucket`);
        if (fencing) await replication.recordTakeover(tenant, fencing.epoch, null);
      } else if (!(fencing && options.fresh)) {
        // Restored, unless a creation under a lease: `ensure` recorded its takeover, following nothing, before its
        // metadata, which cuts every generation of a lower epoch (a deleted database's leftovers, landing even later).
        const restored = await replication.restore(tenant, path);
        if (restored) this.#options.log.info('restored a tenant from the bucket', { tenant, restoredTo: new Date(restored.restoredTo).toISOString(), ...(fencing ? { epoch: fencing.epoch } : {}) });
        if (fencing) {
          fencing.guard();
          await replication.recordTakeover(tenant, fencing.epoch, restored?.reached ?? null);
        }
      }
    }
    await this.#openAndStart(entry, options.rest ?? false);
    const usage = await metas.readUsage(tenant);
    if (usage) meter.restore(tenant, usage.value);
    entry.usageEtag = usage?.etag ?? null;
  }

  /** Opens the tenant's connection and starts a generation; with `rest`, closes the connection after, bounded. */
  async #openAndStart(entry: Entry, rest: boolean): Promise<void> {
    const tenant = entry.meta.tenant;
    const release = rest ? await this.#opening.acquire() : undefined;
    try {
      await this.#options.engine.open(tenant, engineLimits(this.#limitsOf(entry.meta)));
      await this.#startGeneration(entry);
      const replica = entry.replica;
      if (rest && replica && this.#options.openDatabases) {
        await this.#locked(tenant, async () => {
          await replica.restLocked();
          await this.#options.engine.closeTenant(tenant);
        }).catch((err: unknown) => this.#options.log.warn('closing a database opened without a request failed; it stays open', { tenant, err }));
      }
    } finally {
      release?.();
    }
  }

  /** A new replica of the tenant's file, starting a generation (a snapshot of the file as it is now). */
  async #startGeneration(entry: Entry): Promise<void> {
    const replica = this.#newReplica(entry);
    const { upload } = await replica.startGeneration();
    entry.replica = replica;
    entry.baseUpload = upload;
    // Served once the file is local: the base snapshot goes up meanwhile, and no segment (so no synchronous commit's
    // answer) before it. A failed upload leaves the generation without a base: start another.
    upload.catch((err: unknown) => {
      this.#options.log.warn('uploading a generation base failed; starting another', { tenant: entry.meta.tenant, err });
      setTimeout(() => {
        if (this.#tenants.get(entry.meta.tenant) !== entry || entry.replica !== replica) return;
        this.#startGeneration(entry).catch((e: unknown) => this.#options.log.error('starting a generation failed', { tenant: entry.meta.tenant, err: e }));
      }, BASE_RETRY_MS).unref();
    });
  }

  #newReplica(entry: Entry): TenantReplicaPort {
    const { engine, replication } = this.#options;
    const tenant = entry.meta.tenant;
    const project = entry.meta.project ?? tenant;
    const host = { locked: <T>(fn: () => T | Promise<T>) => this.#locked(tenant, () => maintaining(entry, fn)), checkpoint: () => engine.checkpoint(tenant, project) };
    const fencing = entry.fencing;
    return fencing ? replication.replica(tenant, engine.databasePath(tenant), host, fencing) : replication.replica(tenant, engine.databasePath(tenant), host);
  }

  /**
   * The engine lost the connections of the tenants `affected` picks (a shard process died): their streams and open
   * transactions are gone. Each is opened again, what it committed is shipped, and a new generation starts, since
   * the dead process may have left the WAL where the replica cannot follow it; until then its requests wait.
   */
  #restarted(affected: (tenant: string) => boolean): void {
    this.#options.streams.dropTenants(affected);
    for (const entry of this.#tenants.values()) {
      if (!affected(entry.meta.tenant)) continue;
      const previous = entry.ready;
      entry.ready = previous.catch(() => {}).then(() => this.#resume(entry));
      entry.ready.catch((err: unknown) => this.#options.log.error('resuming a tenant after its shard restarted failed', { tenant: entry.meta.tenant, err }));
    }
  }

  async #resume(entry: Entry): Promise<void> {
    const tenant = entry.meta.tenant;
    const previous = entry.replica;
    if (previous) {
      await this.#locked(tenant, () => previous.capture()).catch((err: unknown) => this.#options.log.warn('capturing after a shard restart failed', { tenant, err }));
      await previous.flush().catch(() => {});
      // The new generation's checkpoint writes into the file its snapshot may still be copying.
      await previous.whenCopied();
    }
    await this.#openAndStart(entry, true);
  }

  /** The limits a stored tenant runs under; one that asked under a more generous configuration gets this one's maxima. */
  #limitsOf(meta: TenantMeta): TenantLimits {
    return cappedLimits(meta.limits, this.#options.limitPolicy);
  }

  async #checkRestorePoint(source: RestoreSource): Promise<void> {
    const cluster = this.#options.cluster;
    const here = this.#tenants.has(source.tenant);
    if (!here && !cluster) throw new RestorePointUnavailableError(`No database ${source.tenant} to restore from`);
    await clockPassed(source.at, this.#now);
    if (source.at > this.#now()) throw new RestorePointUnavailableError('The restore time is in the future');
    // Owned by another replica: it ships the source's commits up to now (its base snapshot included) first.
    if (!here && cluster && !(await cluster.shipElsewhere(source.tenant))) throw new RestorePointUnavailableError(`No database ${source.tenant} to restore from`);
    const original = this.#tenants.get(source.tenant);
    // A source created a moment ago serves before its base snapshot is up: its window starts with that upload.
    await original?.baseUpload?.catch(() => {});
    await original?.replica?.flush();
    const window = await this.#options.replication.window(source.tenant);
    if (window === null || source.at < window.earliest) {
      const earliest = window ? new Date(window.earliest).toISOString() : 'none';
      throw new RestorePointUnavailableError(`The restore time is before the earliest point kept (${earliest})`);
    }
  }

  async #deleteEverywhere(tenant: string): Promise<void> {
    await this.#removeLocalFiles(tenant);
    await this.#options.replication.delete(tenant);
    await this.#options.metas.delete(tenant);
    this.#options.meter.forget(tenant);
  }

  /**
   * Closes the tenant's connection for good (a deletion, a release): under its lock, waited for as long as it takes
   * (what holds it is this process's own work, its streams closed already: a time limit would leave the connection
   * open under files about to go), once no snapshot copy reads the file (closing checkpoints into it). `ship` runs
   * first, under the same lock; the connection closes whether it succeeds or not.
   */
  async #closeForGood(tenant: string, entry: Entry, ship?: () => Promise<void>): Promise<void> {
    // Said once a minute while it waits, so a wait that never ends (a store call without a bound under the lock) is seen.
    const waiting = setInterval(() => this.#options.log.warn('closing a database waits for its lock', { tenant }), 60_000);
    waiting.unref();
    await this.#locked(
      tenant,
      async () => {
        clearInterval(waiting);
        try {
          await ship?.();
        } finally {
          await entry.replica?.whenCopied();
          await this.#options.engine.closeTenant(tenant);
        }
      },
      Infinity,
    ).finally(() => clearInterval(waiting));
  }

  async #locked<T>(tenant: string, fn: () => T | Promise<T>, timeoutMs = 60_000): Promise<T> {
    const lock = this.#options.streams.lockFor(tenant);
    const owner = {};
    await lock.acquire(owner, timeoutMs, () => new SqlError('SQLITE_BUSY', `Tenant ${tenant} stayed locked`));
    try {
      return await fn();
    } finally {
      lock.release(owner);
    }
  }
}

/** Runs `fn` (the replica's work under the tenant's lock) as the entry's `maintaining`. */
async function maintaining<T>(entry: Entry, fn: () => T | Promise<T>): Promise<T> {
  let done!: () => void;
  const counted = new Promise<void>((resolve) => (done = resolve));
  entry.maintaining = counted;
  try {
    return await fn();
  } finally {
    if (entry.maintaining === counted) entry.maintaining = undefined;
    done();
  }
}

/** The `project` field of a tenant's metadata: absent when it was never told. */
function projectField(project: string | undefined): { project?: string } {
  return project === undefined ? {} : { project };
}

/** The `limits` field of a tenant's metadata: absent when the database asks for nothing. */
function limitsField(limits: RequestedLimits | undefined): { limits?: RequestedLimits } {
  return limits && Object.values(limits).some((v) => v !== undefined) ? { limits: { ...limits } } : {};
}
