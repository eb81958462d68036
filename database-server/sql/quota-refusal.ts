/**
 * A daily quota the database reached, as the main process tells the engine before each request: `writes`, every
 * statement that would write fails (reads still run); `all`, every statement fails but those ending a transaction
 * (COMMIT, ROLLBACK, END), so a client can still close what it opened. The error is `code` with `message`.
 */
export interface QuotaRefusal {
  readonly blocks: 'writes' | 'all';
  readonly code: string;
  readonly message: string;
}

/** The Hrana error code of a refused statement: the client shows it as `LibsqlError.code`. */
export const QUOTA_EXCEEDED = 'QUOTA_EXCEEDED';

const ENDS_TRANSACTION = /^\s*(commit|end|rollback)\b/i;

/** Whether `sql` may run under `refusal` ('all': only a statement ending a transaction may). */
export function runsUnderRefusal(refusal: QuotaRefusal | undefined, sql: string): boolean {
  return refusal?.blocks !== 'all' || ENDS_TRANSACTION.test(sql);
}
