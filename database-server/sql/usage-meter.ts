import type { DayUsage } from '../tenant-meta.ts';

/** What a tenant's statements have done since the counters started, and during the current UTC day. */
export interface TenantUsage {
  rowsRead: number;
  rowsWritten: number;
  /** Epoch milliseconds of the last commit that changed the database, or null. */
  lastWriteAt: number | null;
  /** The current UTC day's counts (zeros from midnight UTC on): what the daily quotas count. */
  today: DayUsage;
  /** A write failed on the size quota, and no write succeeded since. */
  sizeQuotaHit: boolean;
  /** That write failed while a storage bound froze the database (not on its own size quota). */
  sizeQuotaHitFrozen?: boolean;
}

/** The UTC day of `ms`, as YYYY-MM-DD. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Per-tenant statement counters behind the usage figures (`rows_read`, `rows_written`, `last_write_at`) and the
 * daily quotas. A row read is a row a statement returned and a row written one it changed (in a transaction
 * rolled back later too, as the work was done): the `libsql` package does not expose SQLite's scan counters, so
 * rows a query examined without returning them are not counted (sqld counts those). The day's counts start
 * again at midnight UTC, when a tenant is next counted or read.
 */
export class UsageMeter {
  readonly #tenants = new Map<string, TenantUsage>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? (() => Date.now());
  }

  /** Adds one statement's counts. */
  record(tenant: string, rowsRead: number, rowsWritten: number): void {
    const usage = this.#entry(tenant);
    usage.rowsRead += rowsRead;
    usage.rowsWritten += rowsWritten;
    usage.today.rowsRead += rowsRead;
    usage.today.rowsWritten += rowsWritten;
  }

  /** Notes a commit that changed the database (a rolled-back transaction is no write), at the replica's stamp. */
  committed(tenant: string, at = this.#now()): void {
    this.#entry(tenant).lastWriteAt = at;
  }

  /** Notes whether the tenant's last writes failed on its size quota (true; `frozen` when a storage bound froze it) or one succeeded (false). */
  sizeQuota(tenant: string, hit: boolean, frozen = false): void {
    const usage = this.#entry(tenant);
    usage.sizeQuotaHit = hit;
    if (hit && frozen) usage.sizeQuotaHitFrozen = true;
    else delete usage.sizeQuotaHitFrozen;
  }

  /** The counters of `tenant` (zeros when it ran nothing), today's being the current UTC day's. */
  get(tenant: string): TenantUsage {
    const usage = this.#entry(tenant);
    return { ...usage, today: { ...usage.today } };
  }

  /** Starts `tenant` from stored counters (after a restart), keeping nothing counted before. */
  restore(tenant: string, usage: Partial<TenantUsage> & Pick<TenantUsage, 'rowsRead' | 'rowsWritten' | 'lastWriteAt'>): void {
    this.#tenants.set(tenant, {
      rowsRead: usage.rowsRead,
      rowsWritten: usage.rowsWritten,
      lastWriteAt: usage.lastWriteAt,
      today: usage.today ? { ...usage.today } : this.#freshDay(),
      sizeQuotaHit: usage.sizeQuotaHit ?? false,
    });
  }

  forget(tenant: string): void {
    this.#tenants.delete(tenant);
  }

  #entry(tenant: string): TenantUsage {
    let usage = this.#tenants.get(tenant);
    if (usage === undefined) {
      usage = { rowsRead: 0, rowsWritten: 0, lastWriteAt: null, today: this.#freshDay(), sizeQuotaHit: false };
      this.#tenants.set(tenant, usage);
    }
    if (usage.today.day !== utcDay(this.#now())) usage.today = this.#freshDay();
    return usage;
  }

  #freshDay(): DayUsage {
    return { day: utcDay(this.#now()), rowsRead: 0, rowsWritten: 0 };
  }
}
