/**
 * The bounds one database's statements run under. cw-db serves many tenants from one process, so each of these
 * keeps a tenant from taking what the others need: time on a shard, memory, disk. Defaults are cw-db's
 * configuration; a database may ask for other values within the maxima cw-db allows (docs/databases.md, "Limits").
 */
export interface DatabaseLimits {
  /** A statement running longer is interrupted (SQLITE_INTERRUPT); the tenants sharing its shard wait at most this long for it. */
  readonly statementTimeoutMs: number;
  /** The database's size quota: a write that would grow it past this fails with SQLITE_FULL. */
  readonly maxSizeBytes: number;
}

/**
 * A database's daily quotas (UTC days), counted and enforced by cw-db's main process (daily-quota.ts): once the
 * day's written rows reach the first, writes are refused until midnight UTC (reads still work, as on Turso and
 * D1); once the day's read rows reach the second, every statement is.
 */
export interface DailyQuotas {
  readonly rowsReadPerDay: number;
  readonly rowsWrittenPerDay: number;
}

/** Every limit a tenant runs under: the engine's bounds and the daily quotas. */
export type TenantLimits = DatabaseLimits & DailyQuotas;

/** The daily quotas when cw-db's configuration says nothing (docs/databases.md lists them). */
export const DEFAULT_DAILY_QUOTAS: DailyQuotas = Object.freeze({
  rowsReadPerDay: 100_000_000,
  rowsWrittenPerDay: 10_000_000,
});

/** How much one statement may answer: past either bound the statement fails (RESPONSE_TOO_LARGE), never a truncated result. */
export interface AnswerLimits {
  readonly maxRows: number;
  /** Bytes of the result as the Hrana JSON carries it (an estimate, within a few bytes a value). */
  readonly maxBytes: number;
}

/** The defaults when cw-db's configuration says nothing (docs/databases.md lists them). */
export const DEFAULT_DATABASE_LIMITS: DatabaseLimits = Object.freeze({
  statementTimeoutMs: 5_000,
  maxSizeBytes: 1024 * 1024 * 1024,
});

export const DEFAULT_ANSWER_LIMITS: AnswerLimits = Object.freeze({
  maxRows: 1_000_000,
  maxBytes: 10 * 1024 * 1024,
});

const MIB = 1024 * 1024;

/** `bytes` for people: "512 MiB", "1.5 GiB". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * MIB) return `${+(bytes / (1024 * MIB)).toFixed(2)} GiB`;
  if (bytes >= MIB) return `${+(bytes / MIB).toFixed(2)} MiB`;
  return `${bytes} bytes`;
}

/** A count for people: "1,000,000". */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}
