import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { startHranaServer, type HranaServer } from './http-server.ts';
import type { PipelineCaller } from './pipeline.ts';
import type { RouteDecision } from './forward.ts';
import { LocalEngine } from '../shards/local-engine.ts';
import { StreamRegistry } from './stream-registry.ts';
import { openRawWebSocket } from './testing/raw-websocket.ts';
import { ProjectMemory } from './project-memory.ts';
import { relayWebSocket } from './ws-relay.ts';

// Two Hrana servers standing for two replicas: `front` serves `near` and relays a WebSocket whose URL names no
// database to `owner` when its hello's token is of a database `owner` serves (review-164 F7), as HTTP is routed by
// token. Tokens are `rw-<db>`.
const directories: string[] = [];
const clients: Client[] = [];
let owner: HranaServer;
let front: HranaServer;
/** Where `front` sends each database's connections: served here unless named. */
const routes = new Map<string, () => RouteDecision>();
/** What reached `front`'s router: [database in the path, token, forwarded]. */
const asked: Array<[string | null, string | undefined, boolean]> = [];

async function authorize(token: string | undefined, pathTenant: string | null): Promise<PipelineCaller | { status: 401 | 403; code: string; message: string }> {
  const match = /^rw-(.+)$/.exec(token ?? '');
  if (!match) return { status: 401, code: 'UNAUTHORIZED', message: 'The database token is not valid' };
  if (pathTenant !== null && pathTenant !== match[1]) return { status: 403, code: 'FORBIDDEN', message: 'Not this database' };
  return { tenant: match[1]!, readOnly: false };
}

async function hranaServer(route?: HranaServerRoute, bounds: { maxBodyBytes?: number; memory?: ProjectMemory } = {}): Promise<HranaServer> {
  const directory = mkdtempSync(path.join(tmpdir(), 'cw-db-relay-'));
  directories.push(directory);
  return startHranaServer({
    port: 0,
    engine: new LocalEngine({ directory }),
    authorize: (request, pathTenant) => authorize(/^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1], pathTenant),
    streams: new StreamRegistry({ idleTimeoutMs: 5_000, lockTimeoutMs: 1_000, transactionTimeoutMs: 5_000 }),
    websocket: { authorize, maxConnectionsPerDatabase: 10 },
    ...bounds,
    ...(route ? { route } : {}),
  });
}

/** The front's bounds, small: a request body of 64 KiB, 512 KiB held per project. */
const FRONT_BODY_BYTES = 64 * 1024;
class PeakMemory extends ProjectMemory {
  readonly peak = new Map<string, number>();
  override charge(database: string | undefined, bytes: number): void {
    super.charge(database, bytes);
    if (database !== undefined) this.peak.set(database, Math.max(this.peak.get(database) ?? 0, this.heldBy(database)));
  }
}
const frontMemory = new PeakMemory({ limitBytes: 512 * 1024 });
type HranaServerRoute = NonNullable<Parameters<typeof startHranaServer>[0]['route']>;

beforeAll(async () => {
  owner = await hranaServer();
  front = await hranaServer(
    async (pathTenant, token, forwarded) => {
      asked.push([pathTenant, token, forwarded]);
      const db = pathTenant ?? /^rw-(.+)$/.exec(token ?? '')?.[1];
      return routes.get(db ?? '')?.() ?? { kind: 'local' };
    },
    { maxBodyBytes: FRONT_BODY_BYTES, memory: frontMemory },
  );
  for (const db of ['far', 'wide', 'unread']) routes.set(db, () => ({ kind: 'forward', url: `http://127.0.0.1:${owner.port}`, tenant: db }));
});

afterAll(async () => {
  for (const client of clients) client.close();
  await front?.close();
  await owner?.close();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

function client(url: string, token: string): Client {
  const made = createClient({ url, authToken: token });
  clients.push(made);
  return made;
}

describe('a WebSocket whose URL names no database, on a replica that does not own it', () => {
  it('is relayed to the owner by its hello’s token: statements and a transaction run there, through the official client', async () => {
    const bare = client(`ws://127.0.0.1:${front.port}`, 'rw-far');
    await bare.execute('CREATE TABLE t (v TEXT)');
    await bare.execute("INSERT INTO t VALUES ('relayed')");
    const tx = await bare.transaction('write');
    await tx.execute("INSERT INTO t VALUES ('in a transaction')");
    await tx.commit();
    // On the owner, and not on the front.
    const direct = client(`ws://127.0.0.1:${owner.port}/v1/far`, 'rw-far');
    expect((await direct.execute('SELECT v FROM t ORDER BY rowid')).rows.map((r) => r.v)).toEqual(['relayed', 'in a transaction']);
    await expect(client(`http://127.0.0.1:${front.port}/v1/far-not-routed`, 'rw-far-not-routed').execute('SELECT v FROM t')).rejects.toThrow(/no such table/);
    expect(asked).toContainEqual([null, 'rw-far', false]);
  });

  it('is served where its database is, and a hello without a token is answered there', async () => {
    const near = client(`ws://127.0.0.1:${front.port}/v1`, 'rw-near');
    await near.execute('CREATE TABLE n (v TEXT)');
    expect((await client(`ws://127.0.0.1:${front.port}/v1/near`, 'rw-near').execute('SELECT count(*) AS c FROM n')).rows[0]?.c).toBe(0);
    const c = await openRawWebSocket(`ws://127.0.0.1:${front.port}/`, 'hrana2');
    c.send({ type: 'hello', jwt: null });
    expect(await c.next()).toMatchObject({ type: 'hello_error', error: { code: 'UNAUTHORIZED' } });
  });

  it('hands on what the client sent before the owner was known, in order, and passes the owner’s close on', async () => {
    const c = await openRawWebSocket(`ws://127.0.0.1:${front.port}/`, 'hrana2');
    // Clients do not wait for hello_ok: the requests behind the hello arrive while the owner is looked up.
    c.send({ type: 'hello', jwt: 'rw-far' });
    c.send({ type: 'request', request_id: 1, request: { type: 'open_stream', stream_id: 1 } });
    c.send({ type: 'request', request_id: 2, request: { type: 'execute', stream_id: 1, stmt: { sql: 'SELECT count(*) FROM t', want_rows: true } } });
    expect(await c.next()).toMatchObject({ type: 'hello_ok' });
    expect(await c.next()).toMatchObject({ type: 'response_ok', request_id: 1 });
    expect(await c.next()).toMatchObject({ type: 'response_ok', request_id: 2, response: { result: { rows: [[{ type: 'integer', value: '2' }]] } } });
    // The database moves on: the owner closes its connections 1012, and the client is told so to reconnect.
    owner.closeSockets('far');
    expect(await c.closed).toBe(1012);
  });

  it('passes on answers larger than the requests this replica reads (review-178 R-C)', async () => {
    const wide = client(`ws://127.0.0.1:${front.port}`, 'rw-wide');
    const answers = await wide.batch(['SELECT zeroblob(100000) AS b', 'SELECT zeroblob(100000) AS b']);
    expect(answers.map((a) => (a.rows[0]?.b as ArrayBuffer | undefined)?.byteLength)).toEqual([100_000, 100_000]); // 267 KB of JSON against 64 KiB requests
  });

  it('charges what it holds for a client that does not read to its project, and drops the connection past the bound (review-178 R-D)', async () => {
    const c = await openRawWebSocket(`ws://127.0.0.1:${front.port}/`, 'hrana2');
    c.send({ type: 'hello', jwt: 'rw-unread' });
    expect(await c.next()).toMatchObject({ type: 'hello_ok' });
    c.send({ type: 'request', request_id: 1, request: { type: 'open_stream', stream_id: 1 } });
    expect(await c.next()).toMatchObject({ type: 'response_ok', request_id: 1 });
    c.ws.pause();
    for (let i = 2; i < 40; i++) c.send({ type: 'request', request_id: i, request: { type: 'execute', stream_id: 1, stmt: { sql: 'SELECT zeroblob(100000)', want_rows: true } } });
    // 38 answers of 133 KB: past 512 KiB held for it here, the connection goes (and what it held with it) rather than
    // this process's memory. Before, nothing was charged, and a paused client's answers stayed held.
    await expect.poll(() => (frontMemory.peak.get('unread') ?? 0) > 512 * 1024 && frontMemory.heldBy('unread') === 0, { timeout: 10_000 }).toBe(true);
    c.ws.resume();
    expect(await c.closed).toBe(1006);
  });

  it('is closed 1013 to reconnect when the owner cannot be reached: nothing ran', async () => {
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const { port } = gone.address() as AddressInfo;
    await new Promise((resolve) => gone.close(resolve));
    routes.set('lost', () => ({ kind: 'forward', url: `http://127.0.0.1:${port}`, tenant: 'lost' }));
    const c = await openRawWebSocket(`ws://127.0.0.1:${front.port}/v1`, 'hrana2');
    c.send({ type: 'hello', jwt: 'rw-lost' });
    expect(await c.closed).toBe(1013);
  });
});

describe('relayWebSocket', () => {
  it('holds at most its bound for a client that does not read: the owner is read no further, and everything arrives once the client reads', async () => {
    const MESSAGE = 64 * 1024;
    const COUNT = 512; // 32 MiB: more than the kernel buffers along the way hold
    let ownerSide: WebSocket | undefined;
    let relaySide: WebSocket | undefined;
    const ownerServer = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    ownerServer.on('connection', (ws) => {
      ownerSide = ws;
      for (let i = 0; i < COUNT; i++) ws.send(Buffer.alloc(MESSAGE, i));
    });
    await new Promise((resolve) => ownerServer.once('listening', resolve));
    const relayServer = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    relayServer.on('connection', (ws) => {
      relaySide = ws;
      relayWebSocket(ws, `ws://127.0.0.1:${(ownerServer.address() as AddressInfo).port}/`, [], { database: 'db', memory: new ProjectMemory({ limitBytes: 1024 ** 3 }), bufferBound: 2 * MESSAGE });
    });
    await new Promise((resolve) => relayServer.once('listening', resolve));
    try {
      const reader = new WebSocket(`ws://127.0.0.1:${(relayServer.address() as AddressInfo).port}/`);
      const received: number[] = [];
      reader.on('message', (data: Buffer) => received.push(data[0] ?? -1));
      await new Promise((resolve) => reader.once('open', resolve));
      reader.pause();
      // Once nothing moves (the owner's unsent bytes the same over half a second), the rest waits on the owner's side
      // and the relay holds no more than its bound and the messages already read for the client.
      const samples: number[] = [];
      await expect
        .poll(
          () => {
            samples.push(ownerSide?.bufferedAmount ?? -1);
            return samples.length > 5 && new Set(samples.slice(-5)).size === 1;
          },
          { timeout: 10_000, interval: 100 },
        )
        .toBe(true);
      expect(ownerSide?.bufferedAmount).toBeGreaterThan(8 * 1024 * 1024);
      expect(relaySide?.bufferedAmount).toBeLessThanOrEqual(4 * MESSAGE); // the bound, and the messages read before the pause took
      reader.resume();
      await expect.poll(() => received.length, { timeout: 5_000 }).toBe(COUNT);
      expect(received).toEqual(Array.from({ length: COUNT }, (_, i) => i % 256)); // each message filled with its index's low byte
      reader.close();
    } finally {
      relayServer.close();
      ownerServer.close();
    }
  });
});
