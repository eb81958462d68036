// How far one database's write-ahead log may grow. SQLite never checkpoints by itself here (the replica does it,
// between requests, once it has shipped what the log holds), so without a bound inside a request every autocommit
// statement of one request appended a copy of the pages it rewrote: a 50 MiB database's log reached 3.3 GiB of the
// shared volume in one 30 s request, past its size quota, its project's and the disk's reserve (review-184 H7).
import { statSync } from 'node:fs';
import { SqlError } from './sql-error.ts';

/** The log's bound: past it the replica checkpoints after the request (`maxWalBytes`), and a request runs no more. */
export const DEFAULT_MAX_WAL_BYTES = 256 * 1024 * 1024;

/**
 * The error that ends a request whose database's log passed `bound` while it ran (SQLITE_FULL: the client's own
 * writes filled it); undefined while it is within. A stat of the `-wal` file: cheap enough between statements.
 */
export function walPastBound(databasePath: string, bound: number): SqlError | undefined {
  const size = statSync(`${databasePath}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  if (size <= bound) return undefined;
  return new SqlError(
    'SQLITE_FULL',
    `The database's write-ahead log passed ${Math.round(bound / 1024 ** 2)} MiB within one request: the rest of the request was not run (a transaction it left open is rolled back). Send it again once this one is answered: the log is shipped and emptied then.`,
  );
}
