// Database quotas end to end: a real cw-api, cw-operator and cw-db (child processes) on the run's control plane
// and MinIO, used with the official @libsql/client and the real `cw`. A database's daily quotas of rows written
// and read refuse, once reached, what the peers refuse (writes; then everything), with an error naming the quota
// and when it resets; the counts survive a cw-db restart; the Database's LimitReached condition says which quota,
// and clears when the quota is raised. The project's databases together stop growing at cw-db's project storage
// quota (small here), and grow again once the project frees room.
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Database } from '../src/apis/v1alpha1/database.ts';
import { loadKubeConnection } from '../src/kube/index.ts';
import { DATABASES } from '../src/platform/resources.ts';
import { cw, cwJson, newCwUser, type CwUser } from './harness/cli.ts';
import type { MemberAccount } from './harness/accounts.ts';
import type { ApiServer } from './harness/api-server.ts';
import type { DatabaseServer } from './harness/database-server.ts';
import { startDatabaseStack, type DatabaseStack } from './harness/database-stack.ts';
import { eventually } from './harness/runtime-stack.ts';
import { watchUntil } from './harness/watch.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
/** What the project's databases may hold together on this test's cw-db (its other databases hold about 2 MiB). */
const PROJECT_STORAGE_MIB = 8;
const clients: Client[] = [];
let stack: DatabaseStack | undefined;
let db: DatabaseServer | undefined;
let api: ApiServer | undefined;
let member: MemberAccount;
let user: CwUser;

beforeAll(async () => {
  stack = await startDatabaseStack({ account: 'dbquota', dbName: 'cw-db-quotas', dbEnv: { CW_DB_PROJECT_STORAGE_QUOTA_MIB: String(PROJECT_STORAGE_MIB) } });
  ({ db, api, member } = stack);
  user = newCwUser(api.url, { CW_TOKEN: member.token, CW_PROJECT: member.project, NO_COLOR: '1' });
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await stack?.stop();
});

interface Detail {
  name: string;
  status: string;
  usage: { today?: { day: string; rows_read: number; rows_written: number } };
  limits?: { statement_timeout_ms: number; max_size_bytes: number; rows_read_per_day?: number; rows_written_per_day?: number };
  limit_reached?: { quota: string; message: string };
}

async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${api?.url}/v1/projects/${member.project}${path}`, {
    method,
    headers: { authorization: `Bearer ${member.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function ok<T>(status: number, method: string, path: string, body?: unknown): Promise<T> {
  const res = await call<T>(method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

/** Creates `name` and answers a client of it; `ws`: over Hrana over WebSocket. */
async function createDatabase(name: string, limits?: Record<string, number>): Promise<Client> {
  const created = await ok<{ database_url: string; database_token: string }>(201, 'POST', '/databases', { name, ...(limits ? { limits } : {}) });
  tokens.set(name, created);
  return connect(created.database_url, created.database_token);
}

function connect(url: string, authToken: string): Client {
  const client = createClient({ url, authToken });
  clients.push(client);
  return client;
}

const tokens = new Map<string, { database_url: string; database_token: string }>();

/** Waits (by watch) until the Database's LimitReached condition has `reason`; answers the condition. */
async function limitReached(name: string, reason: string): Promise<{ status: string; reason?: string; message?: string }> {
  const condition = (d: Database | undefined) => d?.status?.conditions?.find((c) => c.type === 'LimitReached');
  const found = (d: Database) => d.metadata?.name === name && condition(d)?.reason === reason;
  const all = await watchUntil<Database>(conn, DATABASES, { namespace: member.project, timeoutMs: 20_000, what: `${name} LimitReached ${reason}` }, (objects) => objects.some(found));
  const answer = condition(all.find(found));
  if (!answer) throw new Error(`${name} has no LimitReached condition`);
  return answer;
}

/** A SELECT of the numbers 1 to `n` (one column). */
const series = (n: number) => `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < ${n}) SELECT n FROM r`;

const midnight = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
};

describe('database quotas through cw-api, cw-operator and cw-db with @libsql/client', { timeout: 90_000 }, () => {
  it('refuses writes once the day’s written rows reach the quota, naming it and its reset; reads still work, another database is unaffected', async () => {
    const client = await createDatabase('writes', { rows_written_per_day: 10 });
    const other = await createDatabase('neighbour');
    await client.execute('CREATE TABLE t (n INTEGER)');
    await client.execute(`INSERT INTO t ${series(10)}`);
    const refused = client.execute('INSERT INTO t VALUES (11)');
    await expect(refused).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED' });
    const message = await refused.catch((err: Error) => err.message);
    expect(message).toContain('quota of 10 rows written per day (10 written today)');
    expect(message).toContain(`writes are refused until ${midnight()} (midnight UTC)`);
    // A batch and an interactive transaction are refused too; reads still work.
    await expect(client.batch(['INSERT INTO t VALUES (12)'], 'write')).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect((await client.execute('SELECT count(*) AS c FROM t')).rows[0]?.c).toBe(10);
    // Over Hrana over WebSocket alike.
    const { database_url, database_token } = tokens.get('writes') ?? { database_url: '', database_token: '' };
    const ws = connect(database_url.replace(/^http/, 'ws'), database_token);
    await expect(ws.execute('INSERT INTO t VALUES (12)')).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED', message: expect.stringContaining('rows written per day') });
    expect((await ws.execute('SELECT count(*) AS c FROM t')).rows[0]?.c).toBe(10);
    await other.execute('CREATE TABLE t (n INTEGER)');
    await other.execute(`INSERT INTO t ${series(50)}`);

    const condition = await limitReached('writes', 'RowsWrittenQuotaReached');
    expect(condition).toMatchObject({ status: 'True' });
    expect(condition.message).toMatch(/^10 rows written on \d{4}-\d{2}-\d{2} \(UTC\) reached the quota of 10 rows written per day: writes are refused until/);
    // cw-api answers from its cache of Databases, which may not hold the status the watch above saw yet.
    const { database } = await eventually(
      'the view with limit_reached',
      () => ok<{ database: Detail }>(200, 'GET', '/databases/writes'),
      (b) => b.database.limit_reached !== undefined,
      10_000,
    );
    expect(database).toMatchObject({
      limits: { rows_written_per_day: 10, rows_read_per_day: 100_000_000 },
      usage: { today: { rows_written: 10 } },
      limit_reached: { quota: 'rows_written_per_day', message: condition.message },
    });
    expect((await ok<{ database: Detail }>(200, 'GET', '/databases/neighbour')).database.limit_reached).toBeUndefined();
  });

  it('keeps the day’s counts across a cw-db restart', async () => {
    await db?.restart({ signal: 'SIGTERM' });
    const client = clients[0] as Client;
    await expect(client.execute('INSERT INTO t VALUES (13)')).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED', message: expect.stringContaining('10 written today') });
    expect((await client.execute('SELECT count(*) AS c FROM t')).rows[0]?.c).toBe(10);
  });

  it('shows the quotas and today’s counts in `cw db get`, and sets them with `cw db update`; the condition clears when the quota is raised', async () => {
    const shown = await cw(user, ['db', 'get', 'writes']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/Limit reached:\s+10 rows written on .* reached the quota of 10 rows written per day/);
    expect(shown.stdout).toMatch(/Rows written\/day:\s+10 of 10 today \(\d{4}-\d{2}-\d{2} UTC\), resets at midnight UTC/);
    expect(shown.stdout).toMatch(/Rows read\/day:\s+\d+ of 100,000,000 today/);
    const json = await cwJson<{ database: Detail }>(user, ['db', 'get', 'writes'], { method: 'GET', path: '/v1/projects/{projectId}/databases/{database}' });
    expect(json.database.limit_reached).toMatchObject({ quota: 'rows_written_per_day' });

    const updated = await cw(user, ['db', 'update', 'writes', '--rows-written-per-day', '1000', '--max-size', '64MiB']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/Rows written\/day:\s+10 of 1,000 today/);
    expect(updated.stdout).toMatch(/Size quota:\s+67 MB/);
    expect((await limitReached('writes', 'WithinLimits')).status).toBe('False');
    await (clients[0] as Client).execute('INSERT INTO t VALUES (14)');

    const bad = await cw(user, ['db', 'update', 'writes', '--rows-written-per-day', 'lots']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--rows-written-per-day');
  });

  it('answers 400 naming the field for a bad value, and 422 past cw-db’s maxima (the database keeps its quotas)', async () => {
    const bad = await call<{ detail: string }>('PATCH', '/databases/writes', { limits: { rows_written_per_day: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('rows_written_per_day');
    const badCreate = await call<{ detail: string }>('POST', '/databases', { name: 'bad', limits: { rows_read_per_day: 'many' } });
    expect(badCreate.status).toBe(400);
    expect(badCreate.body.detail).toContain('rows_read_per_day');
    const past = await call<{ detail: string }>('PATCH', '/databases/writes', { limits: { rows_written_per_day: 2_000_000_000 } });
    expect(past.status).toBe(422);
    expect(past.body.detail).toContain('rows written per day may be at most 1,000,000,000');
    expect((await ok<{ database: Detail }>(200, 'GET', '/databases/writes')).database.limits).toMatchObject({ rows_written_per_day: 1000 });
  });

  it('refuses every statement once the day’s read rows reach the quota', async () => {
    const client = await createDatabase('reads', { rows_read_per_day: 5 });
    await client.execute('CREATE TABLE t (n INTEGER)');
    await client.execute(`INSERT INTO t ${series(20)}`);
    expect((await client.execute('SELECT n FROM t LIMIT 5')).rows).toHaveLength(5);
    for (const sql of ['SELECT 1', 'INSERT INTO t VALUES (0)']) {
      await expect(client.execute(sql)).rejects.toMatchObject({
        code: 'QUOTA_EXCEEDED',
        message: expect.stringContaining(`quota of 5 rows read per day (5 read today): statements are refused until ${midnight()}`),
      });
    }
    expect(await limitReached('reads', 'RowsReadQuotaReached')).toMatchObject({ status: 'True' });
  });

  it('names the size quota when a write would pass it, and says so on LimitReached', async () => {
    const client = await createDatabase('small', { max_size_bytes: 1024 * 1024 });
    await client.execute('CREATE TABLE blobs (b BLOB)');
    await expect(client.execute(`INSERT INTO blobs SELECT randomblob(100000) FROM (${series(20)})`)).rejects.toMatchObject({
      code: 'SQLITE_FULL',
      message: expect.stringContaining('size quota of 1 MiB'),
    });
    const condition = await limitReached('small', 'SizeQuotaReached');
    expect(condition.message).toContain('size quota of 1 MiB');
    // A write that fits clears it.
    await client.execute("INSERT INTO blobs VALUES (x'00')");
    expect((await limitReached('small', 'WithinLimits')).status).toBe('False');
    await eventually(
      'the view without limit_reached',
      () => ok<{ database: Detail }>(200, 'GET', '/databases/small'),
      (b) => b.database.limit_reached === undefined,
      10_000,
    );
  });

  it("stops every database of the project growing at the project's storage quota, and lets them grow once it frees room", async () => {
    const hoard = await createDatabase('hoard', { max_size_bytes: 256 * 1024 * 1024 });
    const neighbour = connect(tokens.get('neighbour')?.database_url ?? '', tokens.get('neighbour')?.database_token ?? '');
    await hoard.execute('CREATE TABLE blobs (b BLOB)');
    // cw-db measures the project's files every 2 s: writes go on until it sees the quota passed, then fail.
    let refused: Error | undefined;
    for (let i = 0; i < 400 && !refused; i++)
      refused = await hoard.execute('INSERT INTO blobs VALUES (randomblob(512 * 1024))').then(
        () => undefined,
        (err: Error) => err,
      );
    expect(refused).toMatchObject({ code: 'SQLITE_FULL', message: expect.stringContaining(`at its storage quota of ${PROJECT_STORAGE_MIB} MiB`) });
    // The project's other databases cannot grow either; they still read, delete and write into pages they have.
    await expect(neighbour.execute('INSERT INTO t SELECT randomblob(200000) FROM (SELECT 1)')).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    expect((await neighbour.execute('SELECT count(*) AS c FROM t')).rows[0]?.c).toBe(50);
    await neighbour.execute('UPDATE t SET n = n + 1');

    const condition = await limitReached('hoard', 'ProjectStorageQuotaReached');
    const held = /^The database cannot grow: the databases of the project \(and of the other projects of the user who created it\) on this server hold [\d.]+ MiB, at its storage quota of 8 MiB/;
    expect(condition.message).toMatch(held);
    const { database } = await eventually(
      'the view with limit_reached',
      () => ok<{ database: Detail }>(200, 'GET', '/databases/hoard'),
      (b) => b.database.limit_reached !== undefined,
      10_000,
    );
    // The figure in the message follows the files (a WAL emptied after shipping), so only its form is compared.
    expect(database.limit_reached).toEqual({ quota: 'project_storage_quota', message: expect.stringMatching(held) });

    // Deleting the database that holds most frees the project's room: the others grow again at the next round.
    await ok(204, 'DELETE', '/databases/hoard');
    await vi.waitFor(() => neighbour.execute('INSERT INTO t SELECT randomblob(200000) FROM (SELECT 1)'), { timeout: 30_000, interval: 500 });
  });
});
