/** What a tenant's statements have done since the counters started. */
export interface TenantUsage {
  rowsRead: number;
  rowsWritten: number;
  /** Epoch milliseconds of the last commit that changed the database, or null. */
  lastWriteAt: number | null;
}

/**
 * Per-tenant statement counters behind the usage figures (`rows_read`, `rows_written`, `last_write_at`). A row
 * read is a row a statement returned and a row written one it changed (in a transaction rolled back later too,
 * as the work was done): the `libsql` package does not expose
 * SQLite's scan counters, so rows a query examined without returning them are not counted (sqld counts those).
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
  }

  /** Notes a commit that changed the database (a rolled-back transaction is no write). */
  committed(tenant: string): void {
    this.#entry(tenant).lastWriteAt = this.#now();
  }

  /** The counters of `tenant` (zeros when it ran nothing). */
  get(tenant: string): TenantUsage {
    return { ...this.#entry(tenant) };
  }

  /** Starts `tenant` from stored counters (after a restart), keeping nothing counted before. */
  restore(tenant: string, usage: TenantUsage): void {
    this.#tenants.set(tenant, { ...usage });
  }

  forget(tenant: string): void {
    this.#tenants.delete(tenant);
  }

  #entry(tenant: string): TenantUsage {
    let usage = this.#tenants.get(tenant);
    if (usage === undefined) {
      usage = { rowsRead: 0, rowsWritten: 0, lastWriteAt: null };
      this.#tenants.set(tenant, usage);
    }
    return usage;
  }
}
