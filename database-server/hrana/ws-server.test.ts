import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, type Client } from '@libsql/client';
import { openWs } from '@libsql/hrana-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHranaServer, type HranaServer } from './http-server.ts';
import type { PipelineCaller } from './pipeline.ts';
import { LocalEngine } from '../shards/local-engine.ts';
import { StreamRegistry } from './stream-registry.ts';
import { openRawWebSocket, type RawWebSocket } from './testing/raw-websocket.ts';

// Hrana over WebSocket against the real server on a real engine, through the official clients: `@libsql/client`
// (which speaks hrana2 over ws://) and `@libsql/hrana-client` (hrana3, with cursors), and raw frames for what a
// hostile or broken client sends. Tokens are `rw-<db>` and `ro-<db>`; anything else is refused.
const HTTP_STREAM_IDLE_MS = 300;
const TRANSACTION_LIMIT_MS = 1_500;
let directory: string;
let server: HranaServer;
// WebSocket streams have the registry's transaction time limit, as HTTP streams do.
const streams = new StreamRegistry({ idleTimeoutMs: HTTP_STREAM_IDLE_MS, lockTimeoutMs: 1_000, transactionTimeoutMs: TRANSACTION_LIMIT_MS });
const clients: Client[] = [];
const revoked = new Set<string>();

async function authorize(token: string | undefined, pathTenant: string | null): Promise<PipelineCaller | { status: 401 | 403; code: string; message: string }> {
  const match = /^(rw|ro)-(.+)$/.exec(token ?? '');
  if (!match || revoked.has(token!)) return { status: 401, code: 'UNAUTHORIZED', message: 'The database token is not valid' };
  if (pathTenant !== null && pathTenant !== match[2]) return { status: 403, code: 'FORBIDDEN', message: 'Not this database' };
  return { tenant: match[2]!, readOnly: match[1] === 'ro' };
}

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'cw-db-ws-'));
  server = await startHranaServer({
    port: 0,
    engine: new LocalEngine({ directory }),
    authorize: (request, pathTenant) => authorize(/^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1], pathTenant),
    streams,
    websocket: { authorize, maxConnectionsPerDatabase: 3 },
  });
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server.close();
  rmSync(directory, { recursive: true, force: true });
});

function connect(db: string, scheme: 'ws' | 'http' = 'ws', token = `rw-${db}`): Client {
  const client = createClient({ url: `${scheme}://127.0.0.1:${server.port}/v1/${db}`, authToken: token });
  clients.push(client);
  return client;
}

/** A raw WebSocket of `db` speaking `protocol`: sends messages, collects what the server answers. */
const raw = (db: string, protocol = 'hrana2'): Promise<RawWebSocket> => openRawWebSocket(`ws://127.0.0.1:${server.port}/v1/${db}`, protocol);

/** A table `t` in `db`, and a raw connection whose stream 1 is inside a transaction that inserted `value` into it. */
async function openTransaction(name: string, value: string): Promise<{ db: Client; c: RawWebSocket }> {
  const db = connect(name);
  await db.execute('CREATE TABLE t (v TEXT)');
  const c = await raw(name);
  c.send({ type: 'hello', jwt: `rw-${name}` });
  await c.next();
  c.send({ type: 'request', request_id: 1, request: { type: 'open_stream', stream_id: 1 } });
  c.send({ type: 'request', request_id: 2, request: { type: 'sequence', stream_id: 1, sql: `BEGIN; INSERT INTO t VALUES ('${value}')` } });
  expect(await c.next()).toMatchObject({ type: 'response_ok', request_id: 1 });
  expect(await c.next()).toMatchObject({ type: 'response_ok', request_id: 2 });
  return { db, c };
}

describe('Hrana over WebSocket', () => {
  it('serves @libsql/client over ws://: statements, batches, and an interactive transaction idle past the HTTP stream limit', async () => {
    const db = connect('shop');
    await db.batch(['CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)', "INSERT INTO t (name) VALUES ('a'), ('b')"], 'write');
    expect((await db.execute({ sql: 'SELECT name FROM t WHERE id = ?', args: [2] })).rows[0]?.name).toBe('b');

    // Over HTTP, a transaction that idles longer than the stream's limit is lost (the libSQL issue users hit most).
    const http = connect('shop', 'http');
    const viaHttp = await http.transaction('write');
    await viaHttp.execute("INSERT INTO t (name) VALUES ('lost')");
    await sleep(HTTP_STREAM_IDLE_MS * 4);
    await expect(viaHttp.commit()).rejects.toMatchObject({ code: 'STREAM_EXPIRED' });

    // Over WebSocket the stream lives as long as its connection (up to the transaction limit): it commits.
    const tx = await db.transaction('write');
    await tx.execute("INSERT INTO t (name) VALUES ('kept')");
    await sleep(HTTP_STREAM_IDLE_MS * 4);
    await tx.execute("INSERT INTO t (name) VALUES ('kept too')");
    await tx.commit();
    const names = (await db.execute('SELECT name FROM t ORDER BY id')).rows.map((r) => r.name);
    expect(names).toEqual(['a', 'b', 'kept', 'kept too']);
  });

  it('serves hrana3 with cursors through @libsql/hrana-client', async () => {
    const client = openWs(`ws://127.0.0.1:${server.port}/v1/cursors`, 'rw-cursors', 3);
    try {
      expect(await client.getVersion()).toBe(3);
      const stream = client.openStream();
      await stream.run('CREATE TABLE n (v INTEGER)');
      await stream.run('INSERT INTO n WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500) SELECT x FROM c');
      const batch = stream.batch(true);
      const count = batch.step().queryValue('SELECT count(*) FROM n');
      const rows = batch.step().query('SELECT v FROM n ORDER BY v');
      const failing = batch.step().run('SELECT * FROM missing_table');
      await batch.execute();
      expect((await count)?.value).toBe(500);
      expect((await rows)?.rows.map((r) => r[0])).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
      await expect(failing).rejects.toThrow(/no such table/);
      stream.close();
    } finally {
      client.close();
    }
  });

  it('rolls back what a dropped connection left open, and frees the database for others', async () => {
    const db = connect('drops');
    await db.execute('CREATE TABLE t (v TEXT)');
    const c = await raw('drops');
    c.send({ type: 'hello', jwt: 'rw-drops' });
    expect(await c.next()).toEqual({ type: 'hello_ok' });
    c.send({ type: 'request', request_id: 1, request: { type: 'open_stream', stream_id: 1 } });
    c.send({ type: 'request', request_id: 2, request: { type: 'sequence', stream_id: 1, sql: "BEGIN; INSERT INTO t VALUES ('uncommitted')" } });
    expect(await c.next()).toMatchObject({ type: 'response_ok', request_id: 1 });
    expect(await c.next()).toMatchObject({ type: 'response_ok', request_id: 2 });
    c.ws.terminate();
    await c.closed;
    // The writer gets the tenant's lock (within its wait) and the row is gone.
    await db.execute("INSERT INTO t VALUES ('after')");
    expect((await db.execute('SELECT v FROM t')).rows.map((r) => r.v)).toEqual(['after']);
  });

  it('rolls back a transaction open past its limit and says so on the stream', async () => {
    const { db, c } = await openTransaction('slow', 'held');
    // Others write meanwhile once the limit has ended it (their wait for the lock is bounded at 1 s, so retry).
    const started = Date.now();
    for (;;) {
      try {
        await db.execute("INSERT INTO t VALUES ('other')");
        break;
      } catch (err) {
        expect((err as { code?: string }).code).toBe('SQLITE_BUSY');
      }
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(TRANSACTION_LIMIT_MS - 1_100);
    c.send({ type: 'request', request_id: 3, request: { type: 'execute', stream_id: 1, stmt: { sql: 'COMMIT' } } });
    expect(await c.next()).toMatchObject({ type: 'response_error', request_id: 3, error: { code: 'TRANSACTION_TIMEOUT' } });
    expect((await db.execute('SELECT v FROM t')).rows.map((r) => r.v)).toEqual(['other']);
    c.ws.close();
  });

  it('answers STREAM_CLOSED on a stream the server ended between requests, never running it outside the transaction it had', async () => {
    const { db, c } = await openTransaction('ended', 'in the transaction');
    // The database closes here (deleted, or moved to another replica): its streams end, their transactions rolled back.
    await streams.closeTenants((tenant) => tenant === 'ended');
    c.send({ type: 'request', request_id: 3, request: { type: 'execute', stream_id: 1, stmt: { sql: "INSERT INTO t VALUES ('after the end')" } } });
    expect(await c.next()).toMatchObject({ type: 'response_error', request_id: 3, error: { code: 'STREAM_CLOSED' } });
    expect((await db.execute('SELECT v FROM t')).rows).toEqual([]);
    c.ws.close();
  });

  it('holds tenants apart: tokens checked at hello and on every request, read-only enforced, connections bounded', async () => {
    await connect('owner').execute('CREATE TABLE secrets (v TEXT)');
    // Another database's token on this database's URL, and no token at all.
    for (const jwt of ['rw-intruder', null]) {
      const c = await raw('owner');
      c.send({ type: 'hello', jwt });
      expect(await c.next()).toMatchObject({ type: 'hello_error', error: { code: jwt ? 'FORBIDDEN' : 'UNAUTHORIZED' } });
      expect(await c.closed).toBe(4001);
    }
    // A request before the hello ends the connection (a protocol error).
    const early = await raw('owner');
    early.send({ type: 'request', request_id: 1, request: { type: 'open_stream', stream_id: 1 } });
    expect(await early.closed).toBe(1002);

    const reader = connect('owner', 'ws', 'ro-owner');
    await expect(reader.execute("INSERT INTO secrets VALUES ('x')")).rejects.toThrow(/read-only|readonly|not allowed/i);
    await expect(reader.execute('ATTACH DATABASE ? AS other', [path.join(directory, 'shop.db')])).rejects.toThrow();

    // A token revoked while its connection is open stops working on it.
    const c = await raw('owner');
    c.send({ type: 'hello', jwt: 'rw-owner' });
    await c.next();
    c.send({ type: 'request', request_id: 1, request: { type: 'open_stream', stream_id: 1 } });
    await c.next();
    revoked.add('rw-owner');
    c.send({ type: 'request', request_id: 2, request: { type: 'execute', stream_id: 1, stmt: { sql: 'SELECT 1' } } });
    expect(await c.next()).toMatchObject({ type: 'response_error', request_id: 2, error: { code: 'UNAUTHORIZED' } });
    revoked.delete('rw-owner');
    c.ws.close();
    await c.closed;

    // At most three connections per database here; the fourth is refused, another database is not affected.
    const held = await Promise.all([raw('capped'), raw('capped'), raw('capped')]);
    for (const h of held) h.send({ type: 'hello', jwt: 'rw-capped' });
    for (const h of held) expect(await h.next()).toEqual({ type: 'hello_ok' });
    const fourth = await raw('capped');
    fourth.send({ type: 'hello', jwt: 'rw-capped' });
    expect(await fourth.next()).toMatchObject({ type: 'hello_error', error: { code: 'TOO_MANY_CONNECTIONS' } });
    expect((await connect('elsewhere').execute('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    for (const h of held) h.ws.close();
  });

  it('closes a connection whose message nests deeper than any Hrana message, before or after its hello, unparsed', async () => {
    const deep = `{"type":"request","request_id":1,"request":${'['.repeat(40)}${']'.repeat(40)}}`;
    const before = await openRawWebSocket(`ws://127.0.0.1:${server.port}/v1/nested`, 'hrana3');
    before.ws.send(deep);
    expect(await before.closed).toBe(1002);
    const after = await openRawWebSocket(`ws://127.0.0.1:${server.port}/v1/nested`, 'hrana3');
    after.send({ type: 'hello', jwt: 'rw-nested' });
    expect(await after.next()).toEqual({ type: 'hello_ok' });
    const reason = new Promise<string>((resolve) => after.ws.once('close', (_code, why) => resolve(why.toString())));
    after.ws.send(deep);
    expect(await reason).toBe('The message nests arrays or objects more than 32 deep');
  });

  it('bounds connections before their hello: 64 from one address, 128 KiB each (review-184 H4)', async () => {
    const url = `ws://127.0.0.1:${server.port}/v1/anonymous`;
    const waiting = await Promise.all(Array.from({ length: 64 }, () => openRawWebSocket(url, 'hrana3')));
    const refused = new WebSocket(url, ['hrana3']);
    refused.on('error', () => {});
    expect(await new Promise<number>((resolve) => refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)))).toBe(429);
    // One greeted frees its place.
    waiting[0]!.send({ type: 'hello', jwt: 'rw-anonymous' });
    expect(await waiting[0]!.next()).toEqual({ type: 'hello_ok' });
    const next = await openRawWebSocket(url, 'hrana3');
    // Past 128 KiB of an unfinished message before a hello: dropped, no close handshake.
    next.ws.send(Buffer.alloc(200 * 1024, 0x20), { fin: false, binary: false });
    expect(await next.closed).toBe(1006);
    // Once greeted, a connection sends what it likes, a request far over that among it.
    waiting[0]!.send({ type: 'request', request_id: 1, request: { type: 'store_sql', sql_id: 1, sql: `SELECT '${'x'.repeat(1024 * 1024)}'` } });
    expect(await waiting[0]!.next()).toMatchObject({ type: 'response_ok', request_id: 1 });
    for (const w of waiting) w.ws.close();
  });

  it('serves a client whose first request, sent right behind its hello, is bigger than the pre-hello budget', async () => {
    const client = createClient({ url: `ws://127.0.0.1:${server.port}/v1/eager`, authToken: 'rw-eager' });
    clients.push(client);
    expect((await client.execute({ sql: 'SELECT length(?) AS n', args: ['x'.repeat(2 * 1024 * 1024)] })).rows[0]?.n).toBe(2 * 1024 * 1024);
  });

  it('refuses an upgrade without a Hrana JSON subprotocol, and on another path', async () => {
    for (const [url, protocols, status] of [
      [`/v1/x`, ['hrana3-protobuf'], 400],
      [`/v2/pipeline`, ['hrana2'], 404],
    ] as const) {
      const ws = new WebSocket(`ws://127.0.0.1:${server.port}${url}`, [...protocols]);
      ws.on('error', () => {});
      const refused = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
      expect(refused).toBe(status);
    }
  });
});
