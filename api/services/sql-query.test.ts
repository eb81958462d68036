import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHranaServer, type HranaServer } from '../../database-server/hrana/http-server.ts';
import { LocalEngine } from '../../database-server/shards/local-engine.ts';
import { StreamRegistry } from '../../database-server/hrana/stream-registry.ts';
import { PublicError, UnavailableError } from '../../src/errors.ts';
import { INVALID_QUERY_TOKEN, runQuery, SqlStatementError, type QueryStatement } from './sql-query.ts';

// runQuery against the real Hrana server on the real engine; the gate accepts one token, for tenants q-*.
const TOKEN = 'cwdb_query-token';
let directory: string;
let server: HranaServer;
let dbUrl: string;

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'cw-sql-query-'));
  server = await startHranaServer({
    port: 0,
    // Small answers, so the size bounds are reached with small tables.
    engine: new LocalEngine({ directory, answer: { maxRows: 1000, maxBytes: 64 * 1024 } }),
    authorize: (request, pathTenant) => {
      // As cw-db's TenantDirectory: a tenant it does not have answers 404 before the token is looked at.
      if (pathTenant?.startsWith('gone-')) return { status: 404, code: 'TENANT_NOT_FOUND', message: 'No such database' };
      if (request.headers.authorization !== `Bearer ${TOKEN}`) return { status: 401, code: 'UNAUTHORIZED', message: 'bad token' };
      if (!pathTenant?.startsWith('q-')) return { status: 403, code: 'FORBIDDEN', message: 'not yours' };
      return { tenant: pathTenant };
    },
  });
  dbUrl = `http://127.0.0.1:${server.port}/`;
});

afterAll(async () => {
  await server.close();
  rmSync(directory, { recursive: true, force: true });
});

const query = (tenantId: string, statements: QueryStatement[], token = TOKEN) => runQuery({ dbUrl, tenantId, token, statements });

describe('runQuery', () => {
  it('runs one statement with positional parameters, then one with named ones', async () => {
    await query('q-one', [{ sql: 'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, flag INTEGER, note TEXT)' }]);
    const [inserted] = await query('q-one', [{ sql: 'INSERT INTO t (name, score, flag, note) VALUES (?, ?, ?, ?)', params: ['ada', 1.5, true, null] }]);
    expect(inserted).toEqual({ columns: [], rows: [], rows_read: 0, rows_written: 1, changes: 1, last_insert_id: 1 });
    await query('q-one', [{ sql: 'INSERT INTO t (name, score, flag) VALUES (:name, @score, $flag)', params: { ':name': 'bob', '@score': 2, $flag: false } }]);
    await query('q-one', [{ sql: 'INSERT INTO t (name, note) VALUES (:name, :note)', params: { name: 'cy', note: 'unprefixed' } }]);
    const [unprefixed] = await query('q-one', [{ sql: 'SELECT name, note FROM t WHERE id = 3' }]);
    expect(unprefixed?.rows).toEqual([['cy', 'unprefixed']]);
    const [selected] = await query('q-one', [{ sql: 'SELECT id, name, score, flag, note FROM t WHERE id BETWEEN ? AND ? ORDER BY id', params: [1, 2] }]);
    expect(selected).toEqual({
      columns: ['id', 'name', 'score', 'flag', 'note'],
      rows: [
        [1, 'ada', 1.5, 1, null],
        [2, 'bob', 2, 0, null],
      ],
      rows_read: 2,
      rows_written: 0,
      changes: 0,
      last_insert_id: null,
    });
  });

  it('passes blobs as {base64} both ways', async () => {
    const base64 = Buffer.from([0, 1, 254, 255]).toString('base64');
    const [result] = await query('q-blob', [{ sql: 'SELECT ? AS b, length(?) AS n, typeof(?) AS t', params: [{ base64 }, { base64 }, { base64 }] }]);
    expect(result?.rows).toEqual([[{ base64 }, 4, 'blob']]);
  });

  it('answers integers beyond 2^53 as strings, exactly', async () => {
    const [result] = await query('q-big', [{ sql: 'SELECT 9007199254740993 AS big, -9223372036854775808 AS min, 9007199254740991 AS safe' }]);
    expect(result?.rows).toEqual([['9007199254740993', '-9223372036854775808', 9007199254740991]]);
    await query('q-big', [{ sql: 'CREATE TABLE r (id INTEGER PRIMARY KEY)' }]);
    const [inserted] = await query('q-big', [{ sql: 'INSERT INTO r VALUES (9007199254740993)' }]);
    expect(inserted?.last_insert_id).toBe('9007199254740993');
  });

  it('runs several statements as one transaction and answers each', async () => {
    const results = await query('q-batch-ok', [{ sql: 'CREATE TABLE b (n INTEGER)' }, { sql: 'INSERT INTO b VALUES (?), (?)', params: [1, 2] }, { sql: 'SELECT sum(n) AS s FROM b' }]);
    expect(results).toHaveLength(3);
    expect(results[1]).toMatchObject({ changes: 2, rows_written: 2 });
    expect(results[2]).toMatchObject({ columns: ['s'], rows: [[3]] });
  });

  it('rolls back the whole batch when statement 2 fails, naming it', async () => {
    await query('q-batch', [{ sql: 'CREATE TABLE u (k TEXT PRIMARY KEY)' }, { sql: "INSERT INTO u VALUES ('taken')" }]);
    const failure = await query('q-batch', [{ sql: "INSERT INTO u VALUES ('kept?')" }, { sql: "INSERT INTO u VALUES ('taken')" }, { sql: "INSERT INTO u VALUES ('never')" }]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SqlStatementError);
    expect(failure).toMatchObject({ statement: 1, code: 'SQLITE_CONSTRAINT', status: 400 });
    expect((failure as Error).message).toMatch(/^Statement 2 failed \(SQLITE_CONSTRAINT\): /);
    const [rows] = await query('q-batch', [{ sql: 'SELECT k FROM u ORDER BY k' }]);
    expect(rows?.rows).toEqual([['taken']]);
    // The stream was closed: the tenant is not left locked in a transaction.
    await query('q-batch', [{ sql: "INSERT INTO u VALUES ('after')" }]);
  });

  it('names statement 1 when a lone statement fails', async () => {
    await expect(query('q-syntax', [{ sql: 'SELEC 1' }])).rejects.toMatchObject({ name: 'SqlStatementError', statement: 0, code: 'SQL_INPUT_ERROR' });
  });

  it('answers 401 with a Bearer challenge for a refused token, and for a token of another database', async () => {
    for (const failure of [await query('q-one', [{ sql: 'SELECT 1' }], 'cwdb_wrong').catch((e: unknown) => e), await query('other', [{ sql: 'SELECT 1' }]).catch((e: unknown) => e)]) {
      expect(failure).toBeInstanceOf(PublicError);
      expect(failure).toMatchObject({ status: 401, message: INVALID_QUERY_TOKEN, headers: { 'www-authenticate': 'Bearer' } });
    }
  });

  it('answers 401 to an invalid token when the engine does not have the database', async () => {
    const failure = await query('gone-db', [{ sql: 'SELECT 1' }], 'cwdb_wrong').catch((e: unknown) => e);
    expect(failure).toMatchObject({ status: 401, message: INVALID_QUERY_TOKEN });
  });

  it("answers the engine's refusal of a result over its bound as the statement's error, not a cut-off result", async () => {
    await query('q-large', [{ sql: "CREATE TABLE t AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 2000) SELECT n, printf('%0100d', n) AS pad FROM r" }]);
    const failure = await query('q-large', [{ sql: 'SELECT * FROM t' }]).catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: 'SqlStatementError', status: 400, code: 'RESPONSE_TOO_LARGE' });
    expect((failure as Error).message).toMatch(/page with LIMIT and OFFSET/);
    expect((await query('q-large', [{ sql: 'SELECT * FROM t LIMIT 10' }]))[0]?.rows).toHaveLength(10);
  });

  it('keeps nothing of a statement that wrote and returned rows when its answer is refused as too large (found by a hostile run)', async () => {
    await query('q-returning', [{ sql: 'CREATE TABLE t (n INTEGER, pad TEXT)' }]);
    const insert = "INSERT INTO t WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 2000) SELECT n, printf('%0100d', n) FROM r RETURNING *";
    const failure = await query('q-returning', [{ sql: insert }]).catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: 'SqlStatementError', status: 400, code: 'RESPONSE_TOO_LARGE' });
    expect((await query('q-returning', [{ sql: 'SELECT count(*) FROM t' }]))[0]?.rows).toEqual([[0]]);
    // One whose answer fits is kept, and the next statement runs as ever.
    expect((await query('q-returning', [{ sql: "INSERT INTO t VALUES (1, 'a') RETURNING n" }]))[0]?.rows).toEqual([[1]]);
    expect((await query('q-returning', [{ sql: 'SELECT count(*) FROM t' }]))[0]?.rows).toEqual([[1]]);
  });

  it('reads no more of the engine’s answer than its bound, answering 502 past it', async () => {
    await query('q-bound', [{ sql: 'CREATE TABLE t (v)' }, { sql: "INSERT INTO t VALUES (printf('%.*c', 20000, 'x'))" }]);
    const failure = await runQuery({ dbUrl, tenantId: 'q-bound', token: TOKEN, statements: [{ sql: 'SELECT v FROM t' }], maxAnswerBytes: 10_000 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PublicError);
    expect(failure).toMatchObject({ status: 502 });
  });

  it('holds room for an answer before reading it, by its length, and answers 502 without reading it when none comes (the statements ran)', async () => {
    await query('q-room', [{ sql: 'CREATE TABLE t (v)' }, { sql: "INSERT INTO t VALUES (printf('%.*c', 5000, 'x'))" }]);
    const asked: number[] = [];
    const [row] = await runQuery({ dbUrl, tenantId: 'q-room', token: TOKEN, statements: [{ sql: 'SELECT v FROM t' }], reserve: async (bytes) => void asked.push(bytes) });
    expect(row?.rows).toHaveLength(1);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toBeGreaterThan(5000);
    expect(asked[0]).toBeLessThan(6000);
    const failure = await runQuery({
      dbUrl,
      tenantId: 'q-room',
      token: TOKEN,
      statements: [{ sql: "INSERT INTO t VALUES ('y') RETURNING v" }],
      reserve: () => Promise.reject(new Error('timed out')),
    }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ status: 502, headers: {} });
    expect((failure as Error).message).toMatch(/^The statements ran \(what they wrote was applied\)/);
    expect((await query('q-room', [{ sql: 'SELECT count(*) FROM t' }]))[0]?.rows).toEqual([[2]]);
  });

  it("answers the engine's 429 as a 429 to retry and its 413 as a 413, in the API's words, not the engine's", async () => {
    // cw-db's answers past a project's memory bound and a body's size, as it words them.
    const engine = createHttpServer((request, response) => {
      const [status, body] = request.url?.includes('/busy-')
        ? [429, { error: 'Project p1 holds 64 MiB of requests in cw-db, its most; retry shortly.', code: 'PROJECT_BUSY' }]
        : [413, { error: 'Body over 1048576 bytes', code: 'REQUEST_TOO_LARGE' }];
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ ...body, message: body.error }));
    });
    await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
    const engineUrl = `http://127.0.0.1:${(engine.address() as AddressInfo).port}/`;
    const at = (tenantId: string) => runQuery({ dbUrl: engineUrl, tenantId, token: TOKEN, statements: [{ sql: 'SELECT 1' }] }).catch((error: unknown) => error);
    const busy = await at('busy-1');
    expect(busy).toBeInstanceOf(PublicError);
    expect([(busy as PublicError).status, (busy as PublicError).headers]).toEqual([429, { 'retry-after': '1' }]);
    expect((busy as PublicError).message).not.toContain('p1');
    const big = await at('big-1');
    expect([(big as PublicError).status, (big as PublicError).message]).toEqual([413, 'The statements are too large for the database engine; send fewer or shorter ones.']);
    await new Promise((resolve) => engine.close(resolve));
  });

  it('answers a database locked by another transaction past the wait as a 503 to retry, naming SQLITE_BUSY, not a 400 (found by a hostile run)', async () => {
    const lockDir = mkdtempSync(path.join(tmpdir(), 'cw-sql-query-lock-'));
    const locking = await startHranaServer({
      port: 0,
      engine: new LocalEngine({ directory: lockDir }),
      streams: new StreamRegistry({ lockTimeoutMs: 100 }),
      authorize: (_request, pathTenant) => ({ tenant: pathTenant ?? 'q-lock' }),
    });
    const pipeline = (body: object) =>
      fetch(`http://127.0.0.1:${locking.port}/v1/q-lock/v2/pipeline`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
        (r) => r.json() as Promise<{ baton: string | null }>,
      );
    try {
      // Another client's interactive transaction holds the database's lock.
      const { baton } = await pipeline({ baton: null, requests: [{ type: 'execute', stmt: { sql: 'BEGIN IMMEDIATE' } }] });
      const failure = await runQuery({ dbUrl: `http://127.0.0.1:${locking.port}/`, tenantId: 'q-lock', token: TOKEN, statements: [{ sql: 'SELECT 1' }] }).catch((e: unknown) => e);
      expect(failure).toMatchObject({ name: 'SqlStatementError', status: 503, code: 'SQLITE_BUSY', headers: { 'retry-after': '1' } });
      expect((failure as Error).message).toMatch(/busy with another client's request or transaction for 0.1 s; retry/);
      await pipeline({ baton, requests: [{ type: 'close' }] });
      await expect(runQuery({ dbUrl: `http://127.0.0.1:${locking.port}/`, tenantId: 'q-lock', token: TOKEN, statements: [{ sql: 'SELECT 1' }] })).resolves.toHaveLength(1);
    } finally {
      await locking.close();
      rmSync(lockDir, { recursive: true, force: true });
    }
  });

  it("answers a request the engine refused in a statement's place by what it means: a project busy 429, a database moving 503, one deleted 401", async () => {
    // cw-db refuses a request let in together with others once its project holds its memory bound, right before it
    // runs: a 200 whose result is the error, as for a statement.
    const codes: Record<string, string> = { busy: 'PROJECT_BUSY', moving: 'DATABASE_MOVING', gone: 'TENANT_NOT_FOUND', sql: 'SQLITE_CONSTRAINT' };
    const engine = createHttpServer((request, response) => {
      const code = codes[request.url?.split('/')[2]?.split('-')[0] ?? ''] ?? 'SQL_ERROR';
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          baton: null,
          results: [
            { type: 'error', error: { message: `engine words for ${code}`, code } },
            { type: 'error', error: { message: 'x', code } },
          ],
        }),
      );
    });
    await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
    const engineUrl = `http://127.0.0.1:${(engine.address() as AddressInfo).port}/`;
    const at = (tenantId: string) =>
      runQuery({ dbUrl: engineUrl, tenantId, token: TOKEN, statements: [{ sql: 'SELECT 1' }] }).then(
        () => undefined,
        (error: unknown) => error as PublicError,
      );
    try {
      const [busy, moving, gone, sql] = await Promise.all([at('busy-1'), at('moving-1'), at('gone-1'), at('sql-1')]);
      expect([busy?.status, busy?.headers, busy?.message]).toEqual([429, { 'retry-after': '1' }, "The database engine is busy with this project's requests; retry shortly."]);
      expect([moving?.status, moving?.headers]).toEqual([503, { 'retry-after': '1' }]);
      expect([gone?.status, gone?.message]).toEqual([401, INVALID_QUERY_TOKEN]);
      expect(sql).toMatchObject({ name: 'SqlStatementError', status: 400, code: 'SQLITE_CONSTRAINT' });
    } finally {
      await new Promise((resolve) => engine.close(resolve));
    }
  });

  it('answers what the engine did not run 503 to retry, and what it may have run or did 502 or 504 without Retry-After, saying which (found in review)', async () => {
    // cw-db's HTTP answers at 500 or more, as it words them; `hang` never answers; `drop` reads the request and hangs up.
    const answers: Record<string, [number, object]> = {
      moving: [503, { message: 'The database is moving to another replica; retry in a moment', code: 'DATABASE_MOVING' }],
      unrestored: [503, { message: 'The database could not be restored; the operator is told', code: 'DATABASE_UNAVAILABLE' }],
      durability: [503, { message: 'The commit could not be copied to the object store yet; it is kept locally and shipped later', code: 'DURABILITY_UNAVAILABLE' }],
      restarted: [503, { message: 'The database engine restarted while running this request', code: 'DATABASE_RESTARTING' }],
      internal: [500, { message: 'Internal error', code: 'INTERNAL' }],
    };
    const engine = createHttpServer((request, response) => {
      const name = request.url?.split('/')[2]?.split('-')[0] ?? '';
      if (name === 'hang') return;
      if (name === 'drop') return void request.resume().on('end', () => request.socket.destroy());
      // A 200 whose body stops half way: the statements ran.
      if (name === 'stall' || name === 'cut') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' }).write('{"baton":null,"res');
        if (name === 'cut') setImmediate(() => request.socket.destroy());
        return;
      }
      const [status, body] = answers[name]!;
      response.writeHead(status, { 'content-type': 'application/json', ...(status === 503 ? { 'retry-after': '1' } : {}) }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
    const engineUrl = `http://127.0.0.1:${(engine.address() as AddressInfo).port}/`;
    const at = (tenantId: string) =>
      runQuery({ dbUrl: engineUrl, tenantId, token: TOKEN, statements: [{ sql: "INSERT INTO t VALUES ('x')" }], timeoutMs: 300 }).then(
        () => undefined,
        (error: unknown) => error as PublicError,
      );
    try {
      const [moving, unrestored, durability, restarted, internal, hang, drop, stall, cut] = await Promise.all(
        ['moving', 'unrestored', 'durability', 'restarted', 'internal', 'hang', 'drop', 'stall', 'cut'].map((name) => at(`${name}-1`)),
      );
      expect([stall?.status, stall?.message]).toEqual([504, 'The database engine did not finish its answer within 0.3 s: the statements ran (what they wrote was applied).']);
      expect([cut?.status, cut?.message]).toEqual([502, 'The database engine lost the connection while it answered: the statements ran (what they wrote was applied).']);
      for (const notRun of [moving, unrestored]) expect([notRun?.status, notRun?.headers]).toEqual([503, { 'retry-after': '1' }]);
      expect([durability?.status, durability?.headers]).toEqual([502, {}]);
      expect(durability?.message).toMatch(/were applied, but could not be copied to the object store yet.*do not run them again/);
      for (const unknown of [restarted, internal, drop]) {
        expect([unknown?.status, unknown?.headers]).toEqual([502, {}]);
        expect(unknown?.message).toMatch(/may or may not have been applied: check before running them again/);
      }
      expect([hang?.status, hang?.message]).toEqual([504, 'The database engine did not answer within 0.3 s. They may or may not have been applied: check before running them again.']);
    } finally {
      engine.closeAllConnections();
      await new Promise((resolve) => engine.close(resolve));
    }
  });

  it('answers a batch the engine refused as a whole by the refusal, and one whose statement found the database locked as that statement’s 503', async () => {
    // A refused request: every result the error. A batch that ran: its steps' errors, BEGIN first, ROLLBACK last.
    const engine = createHttpServer((request, response) => {
      const refused = request.url?.includes('/busy-');
      const error = (code: string) => ({ message: `engine words for ${code}`, code });
      const steps = [null, null, error('SQLITE_BUSY'), null, null];
      const batch = {
        type: 'ok',
        response: { type: 'batch', result: { step_results: steps.map((e) => (e ? null : { cols: [], rows: [], affected_row_count: 0, last_insert_rowid: null })), step_errors: steps } },
      };
      const results = refused
        ? [
            { type: 'error', error: error('PROJECT_BUSY') },
            { type: 'error', error: error('PROJECT_BUSY') },
          ]
        : [batch, { type: 'ok', response: { type: 'close' } }];
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ baton: null, results }));
    });
    await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
    const engineUrl = `http://127.0.0.1:${(engine.address() as AddressInfo).port}/`;
    const batchAt = (tenantId: string) =>
      runQuery({ dbUrl: engineUrl, tenantId, token: TOKEN, statements: [{ sql: 'INSERT INTO t VALUES (1)' }, { sql: 'VACUUM' }, { sql: 'SELECT 1' }] }).then(
        () => undefined,
        (error: unknown) => error as PublicError,
      );
    try {
      const busy = await batchAt('busy-1');
      expect([busy?.status, busy?.headers]).toEqual([429, { 'retry-after': '1' }]);
      const locked = await batchAt('locked-1');
      expect(locked).toMatchObject({ name: 'SqlStatementError', status: 503, code: 'SQLITE_BUSY', statement: 1, headers: { 'retry-after': '1' } });
      expect(locked?.message).toMatch(/^Statement 2 failed \(SQLITE_BUSY\)/);
    } finally {
      await new Promise((resolve) => engine.close(resolve));
    }
  });

  it('answers UnavailableError when the engine cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const failure = await runQuery({ dbUrl: `http://127.0.0.1:${port}`, tenantId: 'q-x', token: TOKEN, statements: [{ sql: 'SELECT 1' }] }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(UnavailableError);
    expect(failure).toMatchObject({ status: 503 });
  });
});
