import { describe, expect, it } from 'vitest';
import { engineFailure, hranaErrorCode, NOT_AUTHORIZED } from './sql-error.ts';
import { cpuTimeMs } from '../../src/testing/cpu-time.ts';

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

describe('engine failures', () => {
  it('reads the JSON the package puts in a generic failure from row iteration', () => {
    const error = Object.assign(new Error('{"code":"SQLITE_INTERRUPT","libsqlError":true,"message":"interrupted","rawCode":9}'), { code: 'GenericFailure' });
    const failure = engineFailure(error);
    expect([failure.code, failure.message]).toEqual(['SQLITE_INTERRUPT', 'interrupted']);
  });

  it('words a refusal of the sandbox instead of passing on the package text', () => {
    const error = Object.assign(new Error('{"code":"SQLITE_AUTH","libsqlError":true,"message":"Authorization denied by JS authorizer","rawCode":23}'), { code: 'SQLITE_AUTH' });
    expect(engineFailure(error)).toMatchObject({ code: 'SQLITE_AUTH', message: NOT_AUTHORIZED });
  });

  it('reads the result code of a connection the package could not open, and names no path', () => {
    const nomem = engineFailure(Object.assign(new Error('Failed to connect to database: `Unable to open connection to local database /var/lib/cw-db/a.db: 7`'), { code: 'GenericFailure' }));
    expect([nomem.code, nomem.message]).toEqual(['SQLITE_NOMEM', 'The statement needs more memory than a database may use on this engine: select or build smaller values']);
    // As the package reports it: its JSON, code SQLITE_ERROR, the result code only at the end of the text.
    const reported = engineFailure(
      Object.assign(new Error('{"code":"SQLITE_ERROR","libsqlError":true,"message":"Failed to connect to database: `Unable to open connection to local database /tmp/d14.db: 7`","rawCode":1}'), {
        code: 'GenericFailure',
      }),
    );
    expect(reported.code).toBe('SQLITE_NOMEM');
    const cantopen = engineFailure(new Error('Failed to connect to database: `Unable to open connection to local database /var/lib/cw-db/a.db: 14`'));
    expect([cantopen.code, cantopen.message]).toEqual(['SQLITE_CANTOPEN', 'The database could not be opened (SQLITE_CANTOPEN)']);
  });

  it('reads an error carrying a tenant’s long text in no time', () => {
    // SQLite repeats a name it cannot find: a tenant chooses it, and `.*` scanned it from every copy of the prefix.
    const name = 'Unable to open connection to local database '.repeat(20_000);
    const ms = cpuTimeMs(() => expect(engineFailure(Object.assign(new Error(`no such table: ${name}`), { code: 'SQLITE_ERROR' })).code).toBe('SQLITE_ERROR'));
    expect(ms).toBeLessThan(100);
  });

  it('keeps an error with a code and a plain message', () => {
    const error = Object.assign(new Error('UNIQUE constraint failed: t.a'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(engineFailure(error)).toMatchObject({ code: 'SQLITE_CONSTRAINT', message: 'UNIQUE constraint failed: t.a' });
  });
});
