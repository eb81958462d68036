import { describe, expect, it } from 'vitest';
import { hranaErrorCode } from './sql-error.ts';

describe('Hrana error codes', () => {
  it.each([
    ['SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: t.a', 'SQLITE_CONSTRAINT'],
    ['SQLITE_CONSTRAINT', 'CHECK constraint failed', 'SQLITE_CONSTRAINT'],
    ['SQLITE_BUSY_SNAPSHOT', 'database is locked', 'SQLITE_BUSY'],
    ['SQLITE_ERROR', 'near "selec": syntax error', 'SQL_INPUT_ERROR'],
    ['SQLITE_ERROR', 'no such table: t', 'SQLITE_ERROR'],
    [undefined, 'something', 'SQLITE_ERROR'],
    ['SOMETHING_ELSE', 'x', 'SOMETHING_ELSE'],
  ])('%s (%s) is %s', (code, message, expected) => {
    expect(hranaErrorCode(code, message)).toBe(expected);
  });
});
