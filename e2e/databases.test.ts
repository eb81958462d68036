// SQL databases end to end, as a new user meets them: a real cw-api, cw-operator and cw-db (child processes) on
// the run's control plane and MinIO, used with the official @libsql/client. A database is created through the
// REST API, used over Hrana, its token rotated, queried through the query route with query tokens, survives
// cw-db losing its disk, is restored to a point in time and deleted; two databases stay apart; a Database
// applied kubectl-style gets its token in a Secret.
import { createHash } from 'node:crypto';
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Database } from '../src/apis/v1alpha1/database.ts';
import { createInformerFactory, loadKubeConnection, objectClient, SECRETS, type KubeObject } from '../src/kube/index.ts';
import { DatabaseDirectory } from '../src/platform/databases/databases.ts';
import { DATABASES } from '../src/platform/resources.ts';
import { createMemberAccount, inviteAndAccept, type MemberAccount } from './harness/accounts.ts';
import type { ApiServer } from './harness/api-server.ts';
import type { DatabaseServer } from './harness/database-server.ts';
import { startDatabaseStack, type DatabaseStack } from './harness/database-stack.ts';
import { eventually } from './harness/runtime-stack.ts';
import { watchUntil } from './harness/watch.ts';

const MIB = 1024 * 1024;
const kubeconfig = inject('kubeconfig');
const conn = loadKubeConnection(kubeconfig);
const clients: Client[] = [];
let stack: DatabaseStack | undefined;
let db: DatabaseServer | undefined;
let api: ApiServer | undefined;
let member: MemberAccount;

beforeAll(async () => {
  stack = await startDatabaseStack({ account: 'db', dbName: 'cw-db-journey' });
  ({ db, api, member } = stack);
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await stack?.stop();
});

interface Created {
  database_id: string;
  database_url?: string;
  database_ws_url?: string;
  created: boolean;
  status: string;
  database_token?: string;
}
interface Detail {
  database_id: string;
  name: string;
  status: string;
  durability: string;
  usage: { size_bytes: number; size_quota_bytes?: number; rows_read: number; rows_written: number; last_write_at: string | null };
  limits?: { statement_timeout_ms: number; max_size_bytes: number; rows_read_per_day?: number; rows_written_per_day?: number };
  restore_window: { earliest: string; latest: string } | null;
  restored_from?: { database: string; timestamp: string };
}
interface QueryAnswer {
  results: { columns: string[]; rows: unknown[][]; rows_written: number; changes: number }[];
  detail?: string;
}

async function call<T>(method: string, path: string, body?: unknown, token = member.token): Promise<{ status: number; body: T }> {
  if (!api) throw new Error('cw-api is not running');
  const res = await fetch(`${api.url}${path.startsWith('/v1/') || path === '/readyz' ? '' : `/v1/projects/${member.project}`}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** Calls the API, expects `status`, and returns the body. */
async function ok<T>(status: number, method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const res = await call<T>(method, path, body, token);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

function connect(url: string | undefined, authToken: string | undefined, intMode: 'number' | 'bigint' = 'number'): Client {
  if (!url || !authToken) throw new Error(`no url (${url}) or token to connect with`);
  const client = createClient({ url, authToken, intMode });
  clients.push(client);
  return client;
}

/** Creates `name` through the API and expects it created and ready (201) with a URL and a token. */
async function createDatabase(name: string, extra: Record<string, unknown> = {}): Promise<Created & { database_url: string; database_token: string }> {
  const created = await ok<Created>(201, 'POST', '/databases', { name, ...extra });
  expect(created).toMatchObject({ created: true, status: 'ready' });
  expect(created.database_url).toBe(`${db?.url}/v1/${created.database_id}`);
  expect(created.database_token).toMatch(/\S{32,}/);
  return created as Created & { database_url: string; database_token: string };
}

/**
 * Commits a row to `marks` and waits until cw-db has shipped it to the bucket: the restore window's `latest` (the
 * newest commit shipped) reaches the moment it was sent. An asynchronous database ships within about a second.
 */
async function commitAndShip(client: Client, databaseId: string): Promise<void> {
  await client.execute('CREATE TABLE IF NOT EXISTS marks (at TEXT)');
  const since = Date.now();
  await client.execute({ sql: 'INSERT INTO marks VALUES (?)', args: [new Date(since).toISOString()] });
  await eventually(
    `${databaseId}: the commit of ${new Date(since).toISOString()} shipped`,
    async () => {
      const res = await fetch(`${db?.adminUrl}/v1/tenants/${databaseId}`, { headers: { authorization: `Bearer ${db?.adminToken}` } });
      return (await res.json()) as { restore_window: { latest: string } | null };
    },
    (t) => t.restore_window !== null && Date.parse(t.restore_window.latest) >= since,
    10_000,
  );
}

/** The rows of `notes`, ordered, as plain tuples. */
async function notes(client: Client): Promise<unknown[][]> {
  const rs = await client.execute('SELECT id, n, f, s, b, z FROM notes ORDER BY id');
  return rs.rows.map((row) => Array.from({ length: rs.columns.length }, (_, i) => row[i]));
}

const blob = (bytes: number[]) => new Uint8Array(bytes).buffer;
/** What `notes` holds after the first test: the batch's three rows (the rolled-back transaction's row is not there). */
const NOTES: unknown[][] = [
  [1, 42, 1.5, 'héllo', blob([0, 1, 2, 255]), null],
  [2, -7, 0.25, '', blob([]), null],
  [3, 0, -3.75, 'third', blob([9]), 'x'],
];

// Shared by the journey's steps, in order.
let main: Created & { database_url: string; database_token: string };
let token = '';

describe('SQL databases through cw-api, cw-operator and cw-db with @libsql/client', { timeout: 60_000 }, () => {
  it('creates a database that @libsql/client uses: a table, a batch, a rolled-back transaction, every value type', async () => {
    main = await createDatabase('notes');
    token = main.database_token;
    const client = connect(main.database_url, token);
    await client.execute('CREATE TABLE notes (id INTEGER PRIMARY KEY, n INTEGER, f REAL, s TEXT, b BLOB, z)');
    await client.batch(
      [
        { sql: 'INSERT INTO notes (n, f, s, b, z) VALUES (?, ?, ?, ?, ?)', args: [42, 1.5, 'héllo', new Uint8Array([0, 1, 2, 255]), null] },
        { sql: 'INSERT INTO notes (n, f, s, b, z) VALUES (:n, :f, :s, :b, NULL)', args: { n: -7, f: 0.25, s: '', b: new Uint8Array([]) } },
        { sql: 'INSERT INTO notes (n, f, s, b, z) VALUES (0, -3.75, ?, ?, ?)', args: ['third', new Uint8Array([9]), 'x'] },
      ],
      'write',
    );
    const tx = await client.transaction('write');
    await tx.execute({ sql: 'INSERT INTO notes (n, s) VALUES (?, ?)', args: [99, 'rolled back'] });
    expect((await tx.execute('SELECT count(*) AS c FROM notes')).rows[0]?.c).toBe(4); // the transaction sees its own row
    await tx.rollback();

    const rows = await notes(client);
    expect(rows).toEqual(NOTES);
    expect(rows.map((r) => r.map((v) => (v instanceof ArrayBuffer ? 'blob' : v === null ? 'null' : typeof v)))).toEqual([
      ['number', 'number', 'number', 'string', 'blob', 'null'],
      ['number', 'number', 'number', 'string', 'blob', 'null'],
      ['number', 'number', 'number', 'string', 'blob', 'string'],
    ]);
    // Integers past 2^53 stay exact for a client that asks for bigints, and are never rounded for one that does not.
    await client.execute({ sql: 'CREATE TABLE big (v INTEGER)', args: [] });
    await client.execute({ sql: 'INSERT INTO big VALUES (?)', args: [9007199254740993n] });
    const exact = connect(main.database_url, token, 'bigint');
    expect((await exact.execute('SELECT v, v - 1 AS w FROM big')).rows[0]).toMatchObject({ v: 9007199254740993n, w: 9007199254740992n });
    await expect(client.execute('SELECT v FROM big')).rejects.toThrow(RangeError);
    await client.execute('DROP TABLE big');
  });

  it("refuses a Database another's token hash, copied into its spec.tokens: the first keeps its token and its requests", async () => {
    const original = await createDatabase('original');
    const databases = objectClient<Database>(conn, DATABASES);
    const copied = (await databases.get(member.project, 'original'))?.spec.tokens?.[0]?.sha256;
    expect(copied).toMatch(/^[0-9a-f]{64}$/);
    await databases.create({ metadata: { name: 'copycat', namespace: member.project }, spec: { tokens: [{ id: 'dbt-00000000000000aa', sha256: copied! }] } });
    try {
      const refused = await eventually(
        'the copy refused',
        () => databases.get(member.project, 'copycat'),
        (d) => d?.status?.conditions?.some((c) => c.type === 'Ready' && c.reason === 'TokenInUse') === true,
      );
      expect(JSON.stringify(refused?.status)).not.toContain('original');
      // The token still opens the first database, by token alone (the URL names no database's path segment).
      const client = connect(original.database_url, original.database_token);
      await client.execute('CREATE TABLE mine (v TEXT)');
      await client.execute("INSERT INTO mine VALUES ('kept')");
      expect((await client.execute('SELECT v FROM mine')).rows.map((r) => r.v)).toEqual(['kept']);
    } finally {
      await databases.delete(member.project, 'copycat');
      await ok(204, 'DELETE', '/databases/original');
    }
  });

  it('answers the same name with created: false and no token, refuses a bad name, and lists without tokens', async () => {
    const again = await ok<Created>(200, 'POST', '/databases', { name: 'notes' });
    expect(again).toEqual({ database_id: main.database_id, database_url: main.database_url, database_ws_url: main.database_url.replace(/^http/, 'ws'), created: false, status: 'ready' });

    const bad = await call<{ status: number; title: string; detail: string }>('POST', '/databases', { name: 'Not_A-Name' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 400, detail: 'body.name must be 1 to 63 lowercase letters, digits and dashes, starting and ending with a letter or digit' });

    const { databases } = await ok<{ databases: Record<string, unknown>[] }>(200, 'GET', '/databases');
    expect(databases).toEqual([
      { database_id: main.database_id, name: 'notes', status: 'ready', created_at: expect.any(String), database_url: main.database_url, database_ws_url: main.database_url.replace(/^http/, 'ws') },
    ]);
    expect(JSON.stringify(databases)).not.toContain(token);
  });

  it('rotates the token: the old one is refused, the new one works', async () => {
    const rotated = await ok<{ database_token: string; token_id: string; read_only: boolean }>(200, 'POST', `/databases/notes/tokens/rotate`, {});
    expect(rotated).toMatchObject({ read_only: false, token_id: expect.stringMatching(/^dbt-[0-9a-f]{16}$/) });
    expect(rotated.database_token).not.toBe(token);
    await expect(connect(main.database_url, token).execute('SELECT 1')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    token = rotated.database_token;
    expect(await notes(connect(main.database_url, token))).toEqual(NOTES);
  });

  it('gives database tokens made with a short-lived API token its expiry at the latest, as personal and git tokens', async () => {
    const brief = await ok<{ access_token: string; token: { expires_at: string } }>(201, 'POST', '/v1/tokens', {
      description: 'one day',
      scopes: ['databases:read', 'databases:write'],
      expires_in_days: 1,
    });
    const expiresAt = brief.token.expires_at;
    const created = await ok<Created & { database_token_expires_at?: string }>(201, 'POST', '/databases', { name: 'brief' }, brief.access_token);
    expect(created.database_token_expires_at).toBe(expiresAt);
    const query = await ok<{ expires_at?: string }>(201, 'POST', '/databases/brief/query-tokens', {}, brief.access_token);
    expect(query.expires_at).toBe(expiresAt);
    // An earlier expiry asked for stands.
    const hour = await ok<{ expires_at?: string }>(201, 'POST', '/databases/brief/query-tokens', { expires_in_seconds: 3600 }, brief.access_token);
    expect(Date.parse(hour.expires_at ?? '')).toBeLessThan(Date.parse(expiresAt));
    const rotated = await ok<{ expires_at?: string }>(200, 'POST', '/databases/brief/tokens/rotate', {}, brief.access_token);
    expect(rotated.expires_at).toBe(expiresAt);
    // A token that does not expire makes tokens that do not either.
    expect(await ok<{ expires_at?: string }>(200, 'POST', '/databases/brief/tokens/rotate', {})).not.toHaveProperty('expires_at');
    await ok(204, 'DELETE', '/databases/brief');
  });

  it('serves the same database over ws:// (Hrana over WebSocket) to @libsql/client: statements and an interactive transaction', async () => {
    const client = connect(main.database_ws_url, token);
    expect(await notes(client)).toEqual(NOTES);
    const tx = await client.transaction('write');
    await tx.execute({ sql: 'INSERT INTO notes (n, s) VALUES (?, ?)', args: [7, 'over ws'] });
    expect((await tx.execute('SELECT count(*) AS c FROM notes')).rows[0]?.c).toBe(4);
    await tx.rollback();
    expect(await notes(connect(main.database_url, token))).toEqual(NOTES);
  });

  it('runs SQL on the query route with query tokens: parameters, an all-or-nothing batch, a read-only token', async () => {
    const { query_token: queryToken } = await ok<{ query_token: string; read_only: boolean }>(201, 'POST', '/databases/notes/query-tokens', {});
    const one = await ok<QueryAnswer>(200, 'POST', '/databases/notes/query', { sql: 'SELECT id, s FROM notes WHERE n > ? ORDER BY id', params: [-1] }, queryToken);
    expect(one.results).toEqual([
      {
        columns: ['id', 's'],
        rows: [
          [1, 'héllo'],
          [3, 'third'],
        ],
        rows_read: 2,
        rows_written: 0,
        changes: 0,
        // A read inserts nothing, whatever the connection inserted before.
        last_insert_id: null,
      },
    ]);

    // The second statement fails: the first one's row must not be kept.
    const failing = await call<QueryAnswer>(
      'POST',
      '/databases/notes/query',
      { statements: [{ sql: "INSERT INTO notes (n, s) VALUES (1000, 'batch')" }, { sql: 'INSERT INTO no_such_table VALUES (1)' }] },
      queryToken,
    );
    expect(failing.status, JSON.stringify(failing.body)).toBe(400);
    expect(failing.body.detail).toMatch(/Statement 2 failed.*no_such_table/);
    const after = await ok<QueryAnswer>(200, 'POST', '/databases/notes/query', { sql: 'SELECT count(*) AS c FROM notes WHERE n = 1000' }, queryToken);
    expect(after.results[0]?.rows).toEqual([[0]]);

    const { query_token: readOnly } = await ok<{ query_token: string; read_only: boolean }>(201, 'POST', '/databases/notes/query-tokens', { read_only: true });
    expect((await ok<QueryAnswer>(200, 'POST', '/databases/notes/query', { sql: 'SELECT count(*) FROM notes' }, readOnly)).results[0]?.rows).toEqual([[3]]);
    const write = await call<QueryAnswer>('POST', '/databases/notes/query', { sql: "INSERT INTO notes (n, s) VALUES (2000, 'read-only')" }, readOnly);
    expect(write.status, JSON.stringify(write.body)).toBeGreaterThanOrEqual(400);
    expect(write.status).toBeLessThan(500);
    expect(await notes(connect(main.database_url, token))).toEqual(NOTES);

    expect((await call('POST', '/databases/notes/query', { sql: 'SELECT 1' }, member.token)).status).toBe(401);
  });

  it('takes a member’s query tokens with them when they are removed from the project; the database’s own token and others’ stay', async () => {
    const visitor = await createMemberAccount(inject('kubeconfig'), 'dbvisit');
    await inviteAndAccept(api!.url, member, visitor);
    const at = `${api!.url}/v1/projects/${member.project}/members/${visitor.user}`;
    const theirs = await eventually(
      'the new member’s query token',
      () => call<{ query_token: string }>('POST', '/databases/notes/query-tokens', {}, visitor.token),
      (r) => r.status === 201,
    );
    const ours = await ok<{ query_token: string }>(201, 'POST', '/databases/notes/query-tokens', {});
    const count = { sql: 'SELECT count(*) FROM notes' };
    expect((await call('POST', '/databases/notes/query', count, theirs.body.query_token)).status).toBe(200);

    expect((await fetch(at, { method: 'DELETE', headers: { authorization: `Bearer ${member.token}` } })).status).toBe(204);
    // Answered once the engine has the tokens without theirs: refused at once.
    expect((await call('POST', '/databases/notes/query', count, theirs.body.query_token)).status).toBe(401);
    expect((await call('POST', '/databases/notes/query', count, ours.query_token)).status).toBe(200);
    expect(await notes(connect(main.database_url, token))).toEqual(NOTES);
  });

  it('makes no token for someone removed whose request was authorised from a cache still listing them', async () => {
    // Another API replica's cache a moment behind the removal: the request passed its check there, the token is made
    // after the removal dropped theirs. Each mint reads the membership from the apiserver and leaves nothing behind.
    const gone = await createMemberAccount(inject('kubeconfig'), 'dbgone');
    const informers = createInformerFactory(conn);
    const directory = new DatabaseDirectory(conn, informers.informer<Database>(DATABASES));
    informers.start();
    try {
      await informers.waitForSync(AbortSignal.timeout(30_000));
      const databases = objectClient<Database>(conn, DATABASES);
      const before = (await databases.get(member.project, 'notes'))?.spec.tokens;
      const formerMember = { userId: gone.user, admin: false };
      await expect(directory.addQueryToken(member.project, 'notes', {}, formerMember)).rejects.toThrow(/no longer a member/);
      await expect(directory.rotate(member.project, 'notes', {}, formerMember)).rejects.toThrow(/no longer a member/);
      await expect(directory.create(member.project, { name: 'by-a-former-member' }, formerMember)).rejects.toThrow(/no longer a member/);
      expect((await databases.get(member.project, 'notes'))?.spec.tokens).toEqual(before);
      expect(await databases.get(member.project, 'by-a-former-member')).toBeUndefined();
      // A member still in the project mints as before.
      await expect(directory.addQueryToken(member.project, 'notes', {}, { userId: member.user, admin: false })).resolves.toMatchObject({ readOnly: false });
    } finally {
      informers.stop();
    }
  });

  it('takes back what it made for someone removed while it was being made: the rotation’s token, the new database', async () => {
    // The removal lands between the check before the write and the one after it.
    const informers = createInformerFactory(conn);
    let asked = 0;
    const directory = new DatabaseDirectory(conn, informers.informer<Database>(DATABASES), { memberNow: async () => ++asked % 2 === 1 });
    informers.start();
    try {
      await informers.waitForSync(AbortSignal.timeout(30_000));
      const databases = objectClient<Database>(conn, DATABASES);
      await databases.create({ metadata: { name: 'contested', namespace: member.project }, spec: { displayName: 'contested' } });
      const before = await eventually(
        'the contested database ready',
        () => databases.get(member.project, 'contested'),
        (d) => d?.status?.state === 'ready',
      );
      const leaving = { userId: member.user, admin: false };
      await expect(directory.rotate(member.project, 'contested', {}, leaving)).rejects.toThrow(/no longer a member/);
      const after = await databases.get(member.project, 'contested');
      // Rotated, then the token they were to be shown replaced: two writes, one token none had before.
      expect((after?.metadata?.generation ?? 0) - (before?.metadata?.generation ?? 0)).toBe(2);
      expect(after?.spec.tokens).toHaveLength(1);
      expect((before?.spec.tokens ?? []).map((t) => t.id)).not.toContain(after?.spec.tokens?.[0]?.id);
      await databases.delete(member.project, 'contested');

      await expect(directory.create(member.project, { name: 'made-while-leaving' }, leaving)).rejects.toThrow(/no longer a member/);
      await eventually(
        'the database made while leaving gone',
        () => databases.get(member.project, 'made-while-leaving'),
        (d) => d === undefined,
      );
    } finally {
      informers.stop();
    }
  });

  it("tells a not-ready database's state on the query route only to a holder of one of its tokens; anyone else gets the 401 of a database that does not exist", async () => {
    // Stuck provisioning: the copy it asks for has no source.
    const held = 'cwdb_held-by-the-test';
    const databases = objectClient<Database>(conn, DATABASES);
    await databases.create({
      metadata: { name: 'stuck', namespace: member.project },
      spec: { restoreFrom: { database: 'nowhere', timestamp: new Date().toISOString() }, tokens: [{ id: 'dbt-0123456789abcdef', sha256: createHash('sha256').update(held).digest('hex') }] },
    });
    try {
      await eventually(
        'the controller saying why it waits',
        () => databases.get(member.project, 'stuck'),
        (d) => d?.status?.state !== undefined && d.status.state !== 'ready',
      );
      const query = (token: string) => call<{ detail?: string }>('POST', '/databases/stuck/query', { sql: 'SELECT 1' }, token);
      const missing = await call<{ detail?: string }>('POST', '/databases/no-such-database/query', { sql: 'SELECT 1' }, 'cwdb_guess');
      expect(missing.status).toBe(401);
      const guessed = await query('cwdb_guess');
      expect([guessed.status, guessed.body.detail]).toEqual([401, missing.body.detail]);
      const holder = await query(held);
      expect([holder.status, holder.body.detail]).toEqual([409, expect.stringMatching(/not ready/)]);
    } finally {
      await databases.delete(member.project, 'stuck');
    }
  });

  it('shows usage and a restore window', async () => {
    const { database } = await eventually(
      'usage.rows_written > 0',
      () => ok<{ database: Detail }>(200, 'GET', `/databases/${main.database_id}`),
      (b) => b.database.usage.rows_written > 0,
    );
    expect(database).toMatchObject({ name: 'notes', status: 'ready', durability: 'async' });
    expect(database.usage.size_bytes).toBeGreaterThan(0);
    expect(Date.parse(database.usage.last_write_at ?? '')).toBeGreaterThan(Date.parse(database.restore_window?.earliest ?? ''));
    expect(Date.parse(database.restore_window?.latest ?? '')).toBeGreaterThanOrEqual(Date.parse(database.restore_window?.earliest ?? ''));
  });

  it('keeps every committed row when cw-db is killed and loses its disk; the API stays ready and reports the engine down meanwhile', async () => {
    const before = connect(main.database_url, token);
    await commitAndShip(before, main.database_id);
    const marks = (await before.execute('SELECT at FROM marks')).rows.length;
    await db?.halt({ signal: 'SIGKILL', wipeDisk: true });
    const engine = async () => {
      const ready = await call<{ dependencies: { name: string; up: boolean | null }[] }>('GET', '/readyz');
      expect(ready.status).toBe(200);
      return ready.body.dependencies.find((d) => d.name === 'database engine')?.up;
    };
    await eventually('the engine reported down', engine, (up) => up === false);
    expect(await (await fetch(api!.metricsUrl)).text()).toContain('cloudwright_api_dependency_up{dependency="database engine"} 0');
    await db?.start();
    await eventually('the engine reported up again', engine, (up) => up === true);
    const after = connect(main.database_url, token);
    expect(await notes(after)).toEqual(NOTES);
    expect((await after.execute('SELECT at FROM marks')).rows).toHaveLength(marks);
  });

  it('restores a database as it was at a point in time into a new one', async () => {
    const client = connect(main.database_url, token);
    await commitAndShip(client, main.database_id);
    const before = new Date().toISOString();
    // A round trip later, so the deletion is committed strictly after `before`.
    await ok(200, 'GET', '/databases/notes');
    await client.execute('DELETE FROM notes');
    expect(await notes(client)).toEqual([]);

    const restored = await createDatabase('notes-restored', { restore_from: { database: 'notes', timestamp: before } });
    expect(await notes(connect(restored.database_url, restored.database_token))).toEqual(NOTES);
    const { database } = await ok<{ database: Detail }>(200, 'GET', '/databases/notes-restored');
    expect(database.restored_from).toEqual({ database: 'notes', timestamp: before });
    expect(await notes(client)).toEqual([]);

    const late = await call('POST', '/databases', { name: 'too-late', restore_from: { database: 'notes', timestamp: new Date(Date.now() + 3_600_000).toISOString() } });
    expect(late.status).toBe(422);
  });

  it('keeps two databases apart', async () => {
    const a = await createDatabase('apart-a');
    const b = await createDatabase('apart-b');
    await connect(a.database_url, a.database_token).batch(['CREATE TABLE who (name TEXT)', "INSERT INTO who VALUES ('a')"], 'write');
    await connect(b.database_url, b.database_token).batch(['CREATE TABLE who (name TEXT)', "INSERT INTO who VALUES ('b')"], 'write');

    const pipeline = (path: string, bearer: string) =>
      fetch(`${db?.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ baton: null, requests: [{ type: 'execute', stmt: { sql: 'SELECT name FROM who' } }, { type: 'close' }] }),
      });
    // The path without a tenant: the token alone says which database.
    const tokenOnly = await pipeline('/v1/v2/pipeline', a.database_token);
    expect(tokenOnly.status).toBe(200);
    const answer = (await tokenOnly.json()) as { results: { response: { result: { rows: { value: string }[][] } } }[] };
    expect(answer.results[0]?.response.result.rows).toEqual([[{ type: 'text', value: 'a' }]]);
    // A's token on B's path.
    const crossed = await pipeline(`/v1/${b.database_id}/v2/pipeline`, a.database_token);
    expect(crossed.status).toBe(403);
    await crossed.body?.cancel();
    // A's token with B's database_url, the way a user configures the official client: the client resolves
    // `v2/pipeline` against a URL without a trailing slash, so the tenant never reaches the server and the token
    // decides (docs/databases.md). It reaches A, the token's database, and never B.
    expect((await connect(b.database_url, a.database_token).execute('SELECT name FROM who')).rows.map((r) => r.name)).toEqual(['a']);
  });

  it('deletes a database: its endpoint answers 404 and its name can be used again', async () => {
    const doomed = await createDatabase('doomed');
    const client = connect(doomed.database_url, doomed.database_token);
    await client.execute('CREATE TABLE t (v)');
    expect((await call('DELETE', '/databases/doomed')).status).toBe(204);
    // The client reports cw-db's 404 by its code: TENANT_NOT_FOUND, "The database was deleted".
    await expect(client.execute('SELECT * FROM t')).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND', message: expect.stringContaining('deleted') });
    expect((await call('GET', '/databases/doomed')).status).toBe(404);
    const reborn = await createDatabase('doomed');
    expect(reborn.database_id).not.toBe(doomed.database_id);
    await expect(connect(reborn.database_url, reborn.database_token).execute('SELECT * FROM t')).rejects.toThrow(/no such table/);
  });

  it("applies a database's limits: asked at creation, changed with PATCH, refused past cw-db's maxima (the database keeps its own)", async () => {
    const bounded = await createDatabase('bounded', { limits: { max_size_bytes: 2 * MIB, statement_timeout_ms: 500 } });
    const client = connect(bounded.database_url, bounded.database_token);
    const shown = await ok<{ database: Detail }>(200, 'GET', '/databases/bounded');
    expect(shown.database).toMatchObject({ limits: { max_size_bytes: 2 * MIB, statement_timeout_ms: 500 }, usage: { size_quota_bytes: 2 * MIB } });
    await expect(client.execute('WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r')).rejects.toMatchObject({
      code: 'SQLITE_INTERRUPT',
      message: expect.stringContaining('0.5 s'),
    });
    await client.execute('CREATE TABLE blobs (b BLOB)');
    await expect(
      client.execute('INSERT INTO blobs SELECT randomblob(100000) FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 40) SELECT n FROM r)'),
    ).rejects.toMatchObject({
      code: 'SQLITE_FULL',
      message: expect.stringContaining('size quota of 2 MiB'),
    });

    const raised = await ok<{ database: Detail }>(200, 'PATCH', '/databases/bounded', { limits: { max_size_bytes: 8 * MIB } });
    // What the request leaves out goes back to the default (5 s).
    expect(raised.database.limits).toEqual({ max_size_bytes: 8 * MIB, statement_timeout_ms: 5000, rows_read_per_day: 100_000_000, rows_written_per_day: 10_000_000 });
    await client.execute('INSERT INTO blobs SELECT randomblob(100000) FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 40) SELECT n FROM r)');

    const refused = await call<{ detail: string }>('PATCH', '/databases/bounded', { limits: { max_size_bytes: 100 * 1024 * MIB } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toMatch(/size quota may be at most 10 GiB/);
    const databases = objectClient<Database>(conn, DATABASES);
    const kept = await databases.get(member.project, 'bounded');
    expect(kept?.spec.limits).toEqual({ maxSizeBytes: 8 * MIB });
    expect((await ok<{ database: Detail }>(200, 'GET', '/databases/bounded')).database).toMatchObject({ status: 'ready', limits: { max_size_bytes: 8 * MIB } });
    expect((await call('POST', '/databases', { name: 'too-big', limits: { max_size_bytes: 100 * 1024 * MIB } })).status).toBe(422);
    // It does not stand: gone, or going (its finalizer runs).
    const gone = await call<{ database?: Detail }>('GET', '/databases/too-big');
    expect(gone.status === 404 || gone.body.database?.status === 'deleting', JSON.stringify(gone.body)).toBe(true);
  });

  it('gives a Database applied kubectl-style, without tokens, a Secret with a working URL and token', async () => {
    const databases = objectClient<Database>(conn, DATABASES);
    await databases.create({ apiVersion: 'cloudwright.dev/v1alpha1', kind: 'Database', metadata: { name: 'from-kubectl', namespace: member.project }, spec: {} });
    const [ready] = await watchUntil<Database>(conn, DATABASES, { namespace: member.project, timeoutMs: 30_000, what: 'from-kubectl ready' }, (all) =>
      all.some((d) => d.metadata?.name === 'from-kubectl' && d.status?.state === 'ready'),
    ).then((all) => all.filter((d) => d.metadata?.name === 'from-kubectl'));
    expect(ready?.status?.tokenSecretName).toBe('from-kubectl-database');
    const secret = await objectClient<KubeObject & { data?: Record<string, string> }>(conn, SECRETS).get(member.project, 'from-kubectl-database');
    const decode = (key: string) => Buffer.from(secret?.data?.[key] ?? '', 'base64').toString('utf8');
    expect(decode('DATABASE_URL')).toBe(ready?.status?.url);
    const client = connect(decode('DATABASE_URL'), decode('DATABASE_TOKEN'));
    await client.execute('CREATE TABLE k (v TEXT)');
    await client.execute("INSERT INTO k VALUES ('from a Secret')");
    expect((await client.execute('SELECT v FROM k')).rows.map((r) => r.v)).toEqual(['from a Secret']);

    // Deleting the Secret rotates the token: the controller, which reads the Secret at each reconcile rather
    // than watching Secrets, mints a new one and the old token stops working.
    const secrets = objectClient<KubeObject & { data?: Record<string, string> }>(conn, SECRETS);
    await secrets.delete(member.project, 'from-kubectl-database');
    const minted = await eventually(
      'a new Secret',
      () => secrets.get(member.project, 'from-kubectl-database'),
      (s) => s !== undefined && s.metadata?.uid !== secret?.metadata?.uid,
    );
    const token = Buffer.from(minted?.data?.DATABASE_TOKEN ?? '', 'base64').toString('utf8');
    expect(token).not.toBe(decode('DATABASE_TOKEN'));
    await eventually(
      'the old token refused',
      () =>
        client.execute('SELECT 1').then(
          () => 'accepted',
          (err: unknown) => String(err),
        ),
      (outcome) => outcome !== 'accepted',
    );
    expect((await connect(decode('DATABASE_URL'), token).execute('SELECT v FROM k')).rows.map((r) => r.v)).toEqual(['from a Secret']);
  });

  it('refuses changing or deleting what a GitOps tool applies (the limit it would set back, the database it would create again, empty); writes the rest as cw-api, keeping the limits git applies', async () => {
    const databases = objectClient<Database>(conn, DATABASES);
    await databases.apply(
      { metadata: { name: 'from-git', namespace: member.project }, spec: { displayName: 'from-git', limits: { statementTimeoutMs: 2000 } } },
      { fieldManager: 'argocd-controller', force: true },
    );
    await eventually(
      'the database ready',
      () => call<{ database: Detail }>('GET', '/databases/from-git'),
      (r) => r.body.database?.status === 'ready',
    );

    const limited = await call<{ detail: string }>('PATCH', '/databases/from-git', { limits: { statement_timeout_ms: 5000 } });
    expect([limited.status, limited.body.detail]).toEqual([409, expect.stringContaining('spec.limits.statementTimeoutMs is applied by argocd-controller')]);
    const deleted = await call<{ detail: string }>('DELETE', '/databases/from-git');
    expect([deleted.status, deleted.body.detail]).toEqual([409, expect.stringContaining('Database from-git is applied by argocd-controller')]);
    expect((await databases.get(member.project, 'from-git'))?.metadata?.deletionTimestamp).toBeUndefined();

    // Its tokens are the API's to write (git leaves them out), and the write is cw-api's by name.
    await ok(200, 'POST', '/databases/from-git/tokens/rotate', {});
    const live = await databases.get(member.project, 'from-git');
    const managers = ((live?.metadata ?? {}) as { managedFields?: { manager: string; operation: string }[] }).managedFields?.map((m) => `${m.manager} ${m.operation}`);
    expect(managers).toEqual(expect.arrayContaining(['argocd-controller Apply', 'cw-api Update']));
    expect(live?.spec.limits).toEqual({ statementTimeoutMs: 2000 });

    // A limit the request leaves out that git applies keeps git's value (not the engine's default, refused).
    const sized = await ok<{ database: Detail }>(200, 'PATCH', '/databases/from-git', { limits: { max_size_bytes: 4 * MIB } });
    expect(sized.database.limits).toMatchObject({ statement_timeout_ms: 2000, max_size_bytes: 4 * MIB });
    expect((await databases.get(member.project, 'from-git'))?.spec.limits).toEqual({ statementTimeoutMs: 2000, maxSizeBytes: 4 * MIB });
  });
});
