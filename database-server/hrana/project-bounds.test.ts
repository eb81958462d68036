import { connect as tcpConnect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { LibsqlError } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHranaServer, type HranaServer } from './http-server.ts';
import type { DatabaseEngine } from '../shards/engine-port.ts';
import { ProjectMemory } from './project-memory.ts';
import { StreamRegistry } from './stream-registry.ts';
import { startEngineTestbed, type EngineTestbed } from './testing/engine-testbed.ts';
import { openRawWebSocket, type RawWebSocket } from './testing/raw-websocket.ts';

// What one project can hold of cw-db's shared processes, tried as a hostile tenant would: bodies it never finishes
// sending, answers it never reads, WebSocket messages, stored SQL and streams it keeps. Each past its project's
// bound costs that project (a refusal), never another. A database `<project>-<name>` belongs to `<project>`.
const MIB = 1024 * 1024;
const projectOf = (database: string) => database.split('-')[0]!;
const memory = new ProjectMemory({ limitBytes: 8 * MIB, projectOf });
const streams = new StreamRegistry({ projectOf, maxStreamsPerProject: 3, transactionTimeoutMs: 600, idleTimeoutMs: 10_000, lockTimeoutMs: 1_000 });
let testbed: EngineTestbed;
let server: HranaServer;
const sockets: Socket[] = [];

beforeAll(async () => {
  testbed = await startEngineTestbed({
    prefix: 'cw-db-bounds-',
    engine: { maxStoredSqlPerProject: MIB, maxPipelineAnswerBytes: 64 * MIB, answer: { maxRows: 1_000_000, maxBytes: 64 * MIB } },
    server: {
      memory,
      streams,
      maxBodyBytes: 4 * MIB,
      answerStallMs: 500,
      websocket: {
        // `slow` is a token whose check takes a while (another replica asked, say); `<database>` names one.
        authorize: async (token) => {
          if (token === 'slow') await delay(1_500);
          return { tenant: token === 'slow' ? 'slow-db' : (token ?? 'none') };
        },
      },
    },
  });
  ({ server } = testbed);
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await testbed.close();
});

/** A pipeline request of `database`'s, as fetch sends it: the status and the JSON answer. */
async function pipeline(database: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${server.port}/v1/${database}/v2/pipeline`, { method: 'POST', body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const execute = (sql: string) => ({ type: 'execute', stmt: { sql } });

/** A raw connection that sends a pipeline request's head and `sent` bytes of a body of `declared`, then nothing. */
function unfinishedBody(database: string, sent: number, declared: number): Socket {
  const socket = tcpConnect(server.port, '127.0.0.1');
  sockets.push(socket);
  socket.write(`POST /v1/${database}/v2/pipeline HTTP/1.1\r\nhost: cw-db\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`);
  socket.write(Buffer.alloc(sent, 0x20));
  return socket;
}

describe('one project’s share of the main process', () => {
  it('refuses a project’s next request while its unfinished bodies hold its bound, serves other projects, and frees the bytes when they go', async () => {
    const open = await pipeline('bodies-c', { requests: [execute('BEGIN')] });
    const sent = 4 * MIB - 100_000;
    const held = [unfinishedBody('bodies-a', sent, 4 * MIB), unfinishedBody('bodies-b', sent, 4 * MIB)];
    await vi.waitFor(() => expect(memory.heldBy('bodies-a')).toBe(2 * sent), { timeout: 5_000 });

    // A request of the same project whose body would pass the bound: 429, with what a person can act on.
    const padded = { requests: [execute('SELECT 1'), { type: 'close' }], padding: ' '.repeat(MIB / 2) };
    const refused = await pipeline('bodies-c', padded);
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ code: 'PROJECT_BUSY', message: expect.stringContaining('8 MiB') });
    // What ends a transaction still runs (a client ending it must not keep its database's lock).
    const ended = await pipeline('bodies-c', { baton: open.json.baton, requests: [execute('COMMIT'), { type: 'close' }] });
    expect(ended.json.results).toMatchObject([{ type: 'ok' }, { type: 'ok' }]);
    // Another project is served as ever, with the official client too.
    expect((await pipeline('victim-a', padded)).status).toBe(200);
    expect((await testbed.connect('victim-b').execute('SELECT 2 AS two')).rows[0]?.two).toBe(2);

    for (const socket of held) socket.destroy();
    await vi.waitFor(() => expect(memory.heldBy('bodies-a')).toBe(0), { timeout: 5_000 });
    expect((await pipeline('bodies-c', padded)).status).toBe(200);
    await vi.waitFor(() => expect(memory.heldBy('victim-a')).toBe(0));
  });

  it('gives up an answer its client does not read, and counts it against the project until then', async () => {
    // About 27 MB of answer: more than the loopback's socket buffers take, so most of it waits in this process.
    const request = JSON.stringify({ requests: [execute('SELECT randomblob(8000000), randomblob(8000000), randomblob(4000000)'), { type: 'close' }] });
    const socket = tcpConnect(server.port, '127.0.0.1');
    sockets.push(socket);
    socket.pause();
    socket.write(`POST /v1/stall-a/v2/pipeline HTTP/1.1\r\nhost: cw-db\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(request)}\r\n\r\n${request}`);
    await vi.waitFor(() => expect(memory.heldBy('stall-a')).toBeGreaterThan(20 * MIB), { timeout: 10_000 });

    // Charged whatever the bound (the work is done), it holds the project's next request back, not another's.
    expect((await pipeline('stall-b', { requests: [execute('SELECT 1'), { type: 'close' }] })).json).toMatchObject({ code: 'PROJECT_BUSY' });
    expect((await pipeline('victim-c', { requests: [execute('SELECT 1'), { type: 'close' }] })).status).toBe(200);
    // Nothing of it read for the stall bound: the connection is dropped and the bytes given back.
    await vi.waitFor(() => expect(memory.heldBy('stall-a')).toBe(0), { timeout: 5_000 });
    expect((await pipeline('stall-b', { requests: [execute('SELECT 1'), { type: 'close' }] })).status).toBe(200);
  });
});

/** A raw hrana3 WebSocket that has said hello with `token`. */
async function socketOf(token: string): Promise<RawWebSocket> {
  const socket = await openRawWebSocket(`ws://127.0.0.1:${server.port}/v1`, 'hrana3');
  socket.send({ type: 'hello', jwt: token });
  return socket;
}

describe('one project’s share over WebSocket', () => {
  it('charges stored SQL to the project: past the bound a store is refused, another project’s is not, and a close gives it back', async () => {
    const socket = await socketOf('wsql-a');
    expect(await socket.next()).toMatchObject({ type: 'hello_ok' });
    const text = `SELECT '${'x'.repeat(2.5 * MIB)}'`;
    for (const id of [1, 2]) {
      socket.send({ type: 'request', request_id: id, request: { type: 'store_sql', sql_id: id, sql: text } });
      expect(await socket.next()).toMatchObject({ type: 'response_ok', request_id: id });
    }
    // 5 MiB stored; this message (2.5 MiB while it waits) and its text would pass the 8 MiB bound.
    socket.send({ type: 'request', request_id: 3, request: { type: 'store_sql', sql_id: 3, sql: text } });
    expect(await socket.next()).toMatchObject({ type: 'response_error', request_id: 3, error: { code: 'PROJECT_BUSY' } });

    const other = await socketOf('wvictim-a');
    expect(await other.next()).toMatchObject({ type: 'hello_ok' });
    other.send({ type: 'request', request_id: 1, request: { type: 'store_sql', sql_id: 1, sql: text } });
    expect(await other.next()).toMatchObject({ type: 'response_ok', request_id: 1 });

    socket.send({ type: 'request', request_id: 4, request: { type: 'close_sql', sql_id: 1 } });
    expect(await socket.next()).toMatchObject({ type: 'response_ok', request_id: 4 });
    socket.send({ type: 'request', request_id: 5, request: { type: 'store_sql', sql_id: 3, sql: text } });
    expect(await socket.next()).toMatchObject({ type: 'response_ok', request_id: 5 });
    socket.ws.close();
    other.ws.close();
    await vi.waitFor(() => expect(memory.heldBy('wsql-a') + memory.heldBy('wvictim-a')).toBe(0));
  });

  it('charges a cursor’s entries to the project until it is closed', async () => {
    const socket = await socketOf('wcursor-a');
    expect(await socket.next()).toMatchObject({ type: 'hello_ok' });
    socket.send({ type: 'request', request_id: 1, request: { type: 'open_stream', stream_id: 1 } });
    socket.send({ type: 'request', request_id: 2, request: { type: 'open_cursor', stream_id: 1, cursor_id: 7, batch: { steps: [{ stmt: { sql: 'SELECT randomblob(6000000)' } }] } } });
    expect(await socket.next()).toMatchObject({ type: 'response_ok', request_id: 1 });
    expect(await socket.next()).toMatchObject({ type: 'response_ok', request_id: 2 });
    expect(memory.heldBy('wcursor-a')).toBeGreaterThan(7 * MIB);
    socket.send({ type: 'request', request_id: 3, request: { type: 'store_sql', sql_id: 1, sql: `SELECT '${'x'.repeat(MIB)}'` } });
    expect(await socket.next()).toMatchObject({ type: 'response_error', request_id: 3, error: { code: 'PROJECT_BUSY' } });
    socket.send({ type: 'request', request_id: 4, request: { type: 'close_cursor', cursor_id: 7 } });
    expect(await socket.next()).toMatchObject({ type: 'response_ok', request_id: 4 });
    await vi.waitFor(() => expect(memory.heldBy('wcursor-a')).toBe(0));
    socket.ws.close();
  });

  it('reads nothing sent behind a hello until its token is checked, then answers it in order', async () => {
    const socket = await socketOf('slow');
    socket.send({ type: 'request', request_id: 1, request: { type: 'open_stream', stream_id: 1 } });
    socket.send({ type: 'request', request_id: 2, request: { type: 'execute', stream_id: 1, stmt: { sql: 'SELECT 7 AS seven' } } });
    expect(await socket.next()).toMatchObject({ type: 'hello_ok' });
    expect(await socket.next()).toMatchObject({ type: 'response_ok', request_id: 1 });
    expect(await socket.next()).toMatchObject({ type: 'response_ok', request_id: 2, response: { result: { rows: [[{ value: '7' }]] } } });
    expect(memory.heldBy(undefined)).toBe(0);
    socket.ws.close();
  });

  it('closes a connection whose hello is not a string, and serves the next one', async () => {
    const socket = await openRawWebSocket(`ws://127.0.0.1:${server.port}/v1`, 'hrana3');
    socket.send({ type: 'hello', jwt: 123 });
    expect(await socket.closed).toBe(1002);
    const next = await socketOf('whello-a');
    expect(await next.next()).toMatchObject({ type: 'hello_ok' });
    next.ws.close();
  });

  it('gives back a cursor whose stream is closed right behind its open_cursor, and frees its id', async () => {
    const socket = await socketOf('wclosed-a');
    expect(await socket.next()).toMatchObject({ type: 'hello_ok' });
    socket.send({ type: 'request', request_id: 1, request: { type: 'open_stream', stream_id: 1 } });
    socket.send({ type: 'request', request_id: 2, request: { type: 'open_cursor', stream_id: 1, cursor_id: 3, batch: { steps: [{ stmt: { sql: 'SELECT randomblob(1000000)' } }] } } });
    socket.send({ type: 'request', request_id: 3, request: { type: 'close_stream', stream_id: 1 } });
    for (const id of [1, 2, 3]) expect(await socket.next()).toMatchObject({ request_id: id });
    await vi.waitFor(() => expect(memory.heldBy('wclosed-a')).toBe(0));
    // The cursor id is free again on a new stream.
    socket.send({ type: 'request', request_id: 4, request: { type: 'open_stream', stream_id: 2 } });
    socket.send({ type: 'request', request_id: 5, request: { type: 'open_cursor', stream_id: 2, cursor_id: 3, batch: { steps: [{ stmt: { sql: 'SELECT 1' } }] } } });
    for (const id of [4, 5]) expect(await socket.next()).toMatchObject({ type: 'response_ok', request_id: id });
    socket.ws.close();
  });
});

describe('what a request may carry', () => {
  it('tells what ends a transaction in no time, however long the text', async () => {
    const started = performance.now();
    const answer = await pipeline('finish-a', { requests: [execute(`COMMIT${' '.repeat(100_000)}!`), { type: 'close' }] });
    expect(answer.json.results).toMatchObject([{ type: 'error' }, { type: 'ok' }]);
    // A pattern that backtracks on the spaces took seconds here, the main process stopped meanwhile.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses a pipeline of more than 100,000 statements, whose answer would be many times its body', async () => {
    const refused = await pipeline('many-steps', { requests: Array.from({ length: 100_001 }, () => ({})) });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'HRANA_PROTO_ERROR', message: expect.stringContaining('at most 100,000 statements') });
    const batch = { type: 'batch', batch: { steps: Array.from({ length: 100_000 }, () => ({ stmt: { sql: 'SELECT 1' } })) } };
    expect((await pipeline('many-steps', { requests: [batch, { type: 'close' }] })).status).toBe(400);
  });
});

describe('streams a project keeps', () => {
  it('refuses a project a stream past its bound, not another project, and lets it open one once one ends', async () => {
    const open = async (database: string) => pipeline(database, { requests: [execute('SELECT 1')] });
    const batons: string[] = [];
    for (const database of ['many-a', 'many-a', 'many-b']) {
      const answer = await open(database);
      expect(answer.status).toBe(200);
      batons.push(answer.json.baton as string);
    }
    const refused = await open('many-c');
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ code: 'TOO_MANY_STREAMS' });
    expect((await open('victim-d')).status).toBe(200);

    expect((await pipeline('many-b', { baton: batons[2], requests: [{ type: 'close' }] })).status).toBe(200);
    expect((await open('many-c')).status).toBe(200);
  });

  it('rolls back a transaction kept open past the bound however busy its client keeps it, and frees its database', async () => {
    const client = testbed.connect('longtx-a');
    await client.execute('CREATE TABLE t (x)');
    const transaction = await client.transaction('write');
    await transaction.execute('INSERT INTO t VALUES (1)');
    const started = Date.now();
    // Requests every 100 ms keep the stream from idling out; the transaction's own age ends it.
    let ended: unknown;
    while (ended === undefined && Date.now() - started < 5_000) {
      await delay(100);
      ended = await transaction.execute('SELECT count(*) FROM t').then(
        () => undefined,
        (error: unknown) => error,
      );
    }
    expect(ended).toBeInstanceOf(LibsqlError);
    expect((ended as LibsqlError).code).toBe('TRANSACTION_TIMEOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    transaction.close();
    // Rolled back, and the database's lock is free for the next writer at once.
    await client.execute('INSERT INTO t VALUES (2)');
    expect((await client.execute('SELECT x FROM t')).rows.map((r) => r.x)).toEqual([2]);
  });
});

describe('a stream that commits and begins again in each request', () => {
  it('has each transaction timed from its own BEGIN, not the first one the stream had', async () => {
    const first = await pipeline('cycle-a', { requests: [execute('CREATE TABLE t (x)'), execute('BEGIN'), execute('INSERT INTO t VALUES (0)')] });
    let baton = first.json.baton as string;
    const started = Date.now();
    // Each request ends a short transaction and starts the next: no transaction is older than ~100 ms, while
    // the stream's first BEGIN is older than the 600 ms bound well before the loop ends.
    for (let i = 1; Date.now() - started < 1_500; i++) {
      await delay(100);
      const next = await pipeline('cycle-a', { baton, requests: [execute(`INSERT INTO t VALUES (${i})`), execute('COMMIT'), execute('BEGIN')] });
      expect(next.json.results).toMatchObject([{ type: 'ok' }, { type: 'ok' }, { type: 'ok' }]);
      baton = next.json.baton as string;
    }
    const last = await pipeline('cycle-a', { baton, requests: [execute('COMMIT'), execute('SELECT count(*) FROM t'), { type: 'close' }] });
    expect(last.json.results).toMatchObject([{ type: 'ok' }, { type: 'ok' }, { type: 'ok' }]);
  });
});

describe('stored SQL a project keeps in a shard', () => {
  it('bounds the SQL text all of a project’s streams store together, not another project’s', async () => {
    const text = `SELECT '${'y'.repeat(600 * 1024)}'`;
    const store = (database: string, baton?: string) => pipeline(database, { ...(baton ? { baton } : {}), requests: [{ type: 'store_sql', sql_id: 1, sql: text }] });
    const first = await store('shardsql-a');
    expect(first.json.results).toMatchObject([{ type: 'ok' }]);
    expect((await store('shardsql-b')).json.results).toMatchObject([{ type: 'error', error: { code: 'SQL_STORE_FULL' } }]);
    const victim = await store('shardvictim-a');
    expect(victim.json.results).toMatchObject([{ type: 'ok' }]);

    await pipeline('shardsql-a', { baton: first.json.baton, requests: [{ type: 'close' }] });
    expect((await store('shardsql-b')).json.results).toMatchObject([{ type: 'ok' }]);
  });
});

describe('requests that wait on the engine', () => {
  // The engine as a shard is to the main process: answering later. Each run waits `RUN_MS` first.
  const RUN_MS = 300;
  let slow: HranaServer;
  let runs = 0;
  let finished = 0;
  const slowMemory = new ProjectMemory({ limitBytes: 8 * MIB, projectOf });
  const slowStreams = new StreamRegistry({ projectOf, maxStreamsPerProject: 3 });

  beforeAll(async () => {
    const engine = testbed.engine;
    const later: DatabaseEngine = {
      databasePath: (tenant) => engine.databasePath(tenant),
      open: (tenant, limits) => engine.open(tenant, limits),
      run: async (run) => {
        runs++;
        await delay(RUN_MS);
        try {
          return await engine.run(run);
        } finally {
          finished++;
        }
      },
      closeStream: (tenant, stream) => engine.closeStream(tenant, stream),
      checkpoint: (tenant) => engine.checkpoint(tenant),
      closeTenant: (tenant) => engine.closeTenant(tenant),
      onRestart: () => {},
      close: async () => {},
    };
    slow = await startHranaServer({
      port: 0,
      engine: later,
      memory: slowMemory,
      streams: slowStreams,
      maxBodyBytes: 4 * MIB,
      authorize: (_request, pathTenant) => ({ tenant: pathTenant ?? 'none' }),
      websocket: { authorize: async (token) => ({ tenant: token ?? 'none' }) },
    });
  });
  afterAll(() => slow.close());

  const slowPipeline = (database: string, body: unknown, signal?: AbortSignal) =>
    fetch(`http://127.0.0.1:${slow.port}/v1/${database}/v2/pipeline`, { method: 'POST', body: JSON.stringify(body), ...(signal ? { signal } : {}) });

  it('charges nothing for the answer of a client that left while its request ran', async () => {
    const gone = slowPipeline('left-a', { requests: [execute('SELECT randomblob(3000000)'), { type: 'close' }] }, AbortSignal.timeout(RUN_MS / 3));
    await expect(gone).rejects.toThrow();
    // The run ends after the client left: its answer is neither kept nor charged.
    const done = finished;
    await vi.waitFor(() => expect(finished).toBeGreaterThan(done));
    await new Promise((resolve) => setImmediate(resolve));
    expect(slowMemory.heldBy('left-a')).toBe(0);
  });

  it('counts a project’s streams from their first request, so requests at once cannot pass the bound', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => slowPipeline(`burst-${i}`, { requests: [execute('SELECT 1')] })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
  });

  it('runs no request of a project whose answers already hold its bound, however many were let in at once', async () => {
    // Five requests let in before any answer exists; each answer (27 MB) more than the socket buffers take.
    const body = JSON.stringify({ requests: [execute('SELECT randomblob(8000000), randomblob(8000000), randomblob(4000000)'), { type: 'close' }] });
    const sizes = await Promise.all(
      [0, 1, 2, 3, 4].map(async () => {
        const socket = tcpConnect(slow.port, '127.0.0.1');
        sockets.push(socket);
        socket.write(`POST /v1/pile-a/v2/pipeline HTTP/1.1\r\nhost: cw-db\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
        const head = await new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1', 0, 512))));
        socket.pause();
        return Number(/content-length: (\d+)/i.exec(head)?.[1]);
      }),
    );
    // The first, and the next if it took the database's lock before the first's answer was charged; no more.
    expect(sizes.filter((size) => size > 20 * MIB).length).toBeLessThanOrEqual(2);
    expect(sizes.filter((size) => size < 1024).length).toBeGreaterThanOrEqual(3);
    expect(slowMemory.heldBy('pile-a')).toBeLessThan(3 * 20 * MIB);
  });

  it('runs nothing more for a WebSocket gone while its requests waited', async () => {
    const socket = await openRawWebSocket(`ws://127.0.0.1:${slow.port}/v1`, 'hrana3');
    socket.send({ type: 'hello', jwt: 'wgone-a' });
    expect(await socket.next()).toMatchObject({ type: 'hello_ok' });
    socket.send({ type: 'request', request_id: 1, request: { type: 'open_stream', stream_id: 1 } });
    for (let id = 2; id < 8; id++) socket.send({ type: 'request', request_id: id, request: { type: 'execute', stream_id: 1, stmt: { sql: 'SELECT 1' } } });
    expect(await socket.next()).toMatchObject({ type: 'response_ok', request_id: 1 });
    await vi.waitFor(() => expect(runs).toBeGreaterThan(0));
    const before = runs;
    socket.ws.terminate();
    // The run under way ends; then as long again for another to start.
    await vi.waitFor(() => expect(finished).toBe(runs));
    await delay(RUN_MS * 2);
    // The run under way when it went may finish; none of the five behind it starts.
    expect(runs - before).toBeLessThanOrEqual(1);
    expect(slowMemory.heldBy('wgone-a')).toBe(0);
  });
});
