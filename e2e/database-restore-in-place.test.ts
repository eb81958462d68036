// In-place restore with undo, end to end: a real cw-api, cw-operator and cw-db (child processes) on the run's
// control plane and MinIO, used with the official @libsql/client. Deleted rows come back under the same URL and
// token, the restore is undone through its undo point, writes running meanwhile from another client are never
// lost once acknowledged, open transactions are rolled back with DATABASE_RESTORED, a time outside the window
// is refused, and a restore asked with kubectl (the annotation) works the same.
import { createClient, type Client } from '@libsql/client';
import { setImmediate } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { RESTORE_ANNOTATION, type Database } from '../src/apis/v1alpha1/database.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { DATABASES } from '../src/platform/resources.ts';
import type { MemberAccount } from './harness/accounts.ts';
import type { ApiServer } from './harness/api-server.ts';
import type { DatabaseServer } from './harness/database-server.ts';
import { startDatabaseStack, type DatabaseStack } from './harness/database-stack.ts';
import { eventually } from './harness/runtime-stack.ts';
import { watchUntil } from './harness/watch.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const clients: Client[] = [];
let stack: DatabaseStack | undefined;
let db: DatabaseServer | undefined;
let api: ApiServer | undefined;
let member: MemberAccount;

beforeAll(async () => {
  stack = await startDatabaseStack({ account: 'dbrestore', dbName: 'cw-db-restore' });
  ({ db, api, member } = stack);
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await stack?.stop();
});

interface Restored {
  database: { database_id: string; database_url?: string; restore_window: { earliest: string; latest: string } | null; last_restore?: { outcome: string; undo_point?: string } };
  restored_to?: string;
  undo_point?: string;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  if (!api) throw new Error('cw-api is not running');
  const res = await fetch(`${api.url}/v1/projects/${member.project}${path}`, {
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

function connect(url: string, authToken: string): Client {
  const client = createClient({ url, authToken });
  clients.push(client);
  return client;
}

/** Waits until cw-db has shipped every commit made before now: the restore window's `latest` reaches a fresh mark. */
async function ship(client: Client, databaseId: string): Promise<void> {
  const since = Date.now();
  await client.execute({ sql: 'INSERT INTO marks VALUES (?)', args: [new Date(since).toISOString()] });
  await eventually(
    `${databaseId}: the commits up to ${new Date(since).toISOString()} shipped`,
    async () => {
      const res = await fetch(`${db?.adminUrl}/v1/tenants/${databaseId}`, { headers: { authorization: `Bearer ${db?.adminToken}` } });
      return (await res.json()) as { restore_window: { latest: string } | null };
    },
    (t) => t.restore_window !== null && Date.parse(t.restore_window.latest) >= since,
    10_000,
  );
}

async function count(client: Client, table: string): Promise<number> {
  return Number((await client.execute(`SELECT count(*) AS c FROM ${table}`)).rows[0]?.c);
}

async function ids(client: Client): Promise<Set<number>> {
  return new Set((await client.execute('SELECT id FROM writes')).rows.map((r) => Number(r.id)));
}

describe('in-place restore with undo', () => {
  let url = '';
  let token = '';
  let databaseId = '';
  let beforeDeletion = '';

  it('brings deleted rows back under the same URL and token, and undoes the restore again', async () => {
    const created = await ok<{ database_id: string; database_url: string; database_token: string }>(201, 'POST', '/databases', { name: 'ledger' });
    ({ database_url: url, database_token: token, database_id: databaseId } = created);
    const client = connect(url, token);
    await client.batch(
      [
        'CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)',
        'CREATE TABLE marks (at TEXT)',
        'CREATE TABLE writes (id INTEGER PRIMARY KEY)',
        ...[1, 2, 3, 4, 5].map((i) => `INSERT INTO items (name) VALUES ('item ${i}')`),
      ],
      'write',
    );
    await ship(client, databaseId);
    beforeDeletion = new Date().toISOString();
    // A round trip later, so the deletion is committed strictly after `beforeDeletion`.
    await ok(200, 'GET', '/databases/ledger');
    await client.execute('DELETE FROM items');
    await ship(client, databaseId);
    expect(await count(client, 'items')).toBe(0);

    const restored = await ok<Restored>(200, 'POST', '/databases/ledger/restore', { timestamp: beforeDeletion });
    expect(restored.restored_to).toBe(beforeDeletion);
    expect(Date.parse(restored.undo_point ?? '')).toBeGreaterThan(Date.parse(beforeDeletion));
    expect(restored.database).toMatchObject({ database_id: databaseId, database_url: url, last_restore: { outcome: 'Restored', undo_point: restored.undo_point } });
    // The same client, URL and token: the rows are back at once.
    expect(await count(client, 'items')).toBe(5);

    const undone = await ok<Restored>(200, 'POST', '/databases/ledger/restore', { timestamp: restored.undo_point });
    expect(await count(client, 'items')).toBe(0);
    expect(Date.parse(undone.undo_point ?? '')).toBeGreaterThan(Date.parse(restored.undo_point ?? ''));
    // Undoing the undo brings the rows back once more: every restore is a point of its own.
    await ok<Restored>(200, 'POST', '/databases/ledger/restore', { timestamp: undone.undo_point });
    expect(await count(client, 'items')).toBe(5);
  });

  it('never loses an acknowledged write running from another client meanwhile: it lands before (undo point) or after (restored data)', async () => {
    const writer = connect(url, token);
    const acknowledged: number[] = [];
    const refused: string[] = [];
    let stop = false;
    // Also when the test fails before it says stop: a closed client rejects at once, and a loop of rejections that
    // never yields to the timers would hold the worker, and the whole run, for good.
    onTestFinished(() => {
      stop = true;
    });
    let next = 1000;
    const writing = (async () => {
      while (!stop) {
        const id = next++;
        try {
          await writer.execute({ sql: 'INSERT INTO writes (id) VALUES (?)', args: [id] });
          acknowledged.push(id);
        } catch (err) {
          refused.push(String((err as { code?: string }).code ?? err));
          await setImmediate();
        }
      }
    })();
    await expect.poll(() => acknowledged.length, { timeout: 10_000 }).toBeGreaterThan(20);
    const restored = await ok<Restored>(200, 'POST', '/databases/ledger/restore', { timestamp: beforeDeletion });
    const afterRestore = acknowledged.length;
    await expect.poll(() => acknowledged.length, { timeout: 10_000 }).toBeGreaterThan(afterRestore + 20);
    stop = true;
    await writing;

    // Only the documented retryable refusal, if any (a request that waited longer than the lock timeout).
    expect(refused.filter((code) => code !== 'SQLITE_BUSY')).toEqual([]);
    const reader = connect(url, token);
    const landedAfter = await ids(reader);
    // The restored data holds none of the writes made before it (the `writes` table was empty then).
    await ok<Restored>(200, 'POST', '/databases/ledger/restore', { timestamp: restored.undo_point });
    const landedBefore = await ids(reader);
    expect(acknowledged.filter((id) => !landedAfter.has(id) && !landedBefore.has(id))).toEqual([]);
    // Both sides saw writes: the restore happened while they ran.
    expect(landedBefore.size).toBeGreaterThan(0);
    expect(landedAfter.size).toBeGreaterThan(0);
    expect([...landedBefore].filter((id) => landedAfter.has(id))).toEqual([]);
  });

  it('rolls back transactions open across the restore with DATABASE_RESTORED (HTTP and WebSocket)', async () => {
    const overHttp = await connect(url, token).transaction('write');
    await overHttp.execute("INSERT INTO items (name) VALUES ('in a transaction')");
    // The HTTP transaction holds the database's lock: the restore rolls it back to go ahead.
    await ok<Restored>(200, 'POST', '/databases/ledger/restore', { timestamp: beforeDeletion });
    await expect(overHttp.execute('SELECT 1')).rejects.toThrow(/restored in place/);
    overHttp.close();

    const overWs = await connect(url.replace(/^http/, 'ws'), token).transaction('write');
    await overWs.execute("INSERT INTO items (name) VALUES ('in a ws transaction')");
    await ok<Restored>(200, 'POST', '/databases/ledger/restore', { timestamp: beforeDeletion });
    await expect(overWs.execute('SELECT 1')).rejects.toThrow(/restored in place/);
    overWs.close();

    const client = connect(url, token);
    expect(await count(client, 'items')).toBe(5);
  });

  it('refuses a time outside the window (with the window), a second restore at once, and an unknown database', async () => {
    const early = await call<{ detail: string }>('POST', '/databases/ledger/restore', { timestamp: '2001-01-01T00:00:00Z' });
    expect(early.status).toBe(422);
    expect(early.body.detail).toMatch(/outside the restore window of ledger: \d{4}-\d\d-\d\dT.* to now/);
    const future = await call('POST', '/databases/ledger/restore', { timestamp: new Date(Date.now() + 3_600_000).toISOString() });
    expect(future.status).toBe(422);
    expect((await call('POST', '/databases/nothing-here/restore', { timestamp: beforeDeletion })).status).toBe(404);

    const both = await Promise.all([1, 2].map(() => call('POST', '/databases/ledger/restore', { timestamp: beforeDeletion })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it('restores the same way when the annotation is applied kubectl-style', async () => {
    const client = connect(url, token);
    await client.execute('DELETE FROM items');
    const request = `${beforeDeletion}#by-hand`;
    await objectClient<Database>(conn, DATABASES).patch(member.project, 'ledger', { metadata: { annotations: { [RESTORE_ANNOTATION]: request } } });
    const [answered] = await watchUntil<Database>(conn, DATABASES, { namespace: member.project, timeoutMs: 60_000, what: 'the restore answered' }, (all) =>
      all.some((d) => d.metadata?.name === 'ledger' && d.status?.lastRestore?.request === request),
    ).then((all) => all.filter((d) => d.metadata?.name === 'ledger'));
    expect(answered?.status?.lastRestore).toMatchObject({ outcome: 'Restored', restoredTo: beforeDeletion });
    expect(await count(client, 'items')).toBe(5);
  });
});
