// A WebSocket connection dropped while its request waits for a place in its shard: on the real server and a real
// engine behind one place (as a busy shard's), the request gives its place up and runs nothing. Before, a hostile
// client could queue requests, drop the connection, and keep its neighbours waiting while they all ran.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHranaServer, type HranaServer } from './http-server.ts';
import { StreamRegistry } from './stream-registry.ts';
import { openRawWebSocket } from './testing/raw-websocket.ts';
import type { DatabaseEngine, PipelineOutcome, PipelineRun } from '../shards/engine-port.ts';
import { LocalEngine } from '../shards/local-engine.ts';
import { ProjectSlots } from '../shards/project-slots.ts';

/** A real engine behind one place for running requests; the `hog` database's requests hold it until `open()`. */
class OnePlaceEngine {
  readonly slots = new ProjectSlots(1);
  readonly ran: string[] = [];
  readonly #engine: LocalEngine;
  #open: () => void = () => {};
  #gate: Promise<void> = Promise.resolve();

  constructor(engine: LocalEngine) {
    this.#engine = engine;
  }

  closeGate(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }

  open(): void {
    this.#open();
  }

  async run(run: PipelineRun, cancel?: AbortSignal): Promise<PipelineOutcome> {
    // Every database of one project: a request waits for the place, as none is lent within a project.
    const release = await this.slots.acquire('one project', cancel);
    try {
      this.ran.push(run.tenant);
      if (run.tenant === 'hog') await this.#gate;
      return await this.#engine.run(run);
    } finally {
      release();
    }
  }

  asEngine(): DatabaseEngine {
    const engine = this.#engine;
    return {
      databasePath: (tenant) => engine.databasePath(tenant),
      open: (tenant, limits) => engine.open(tenant, limits),
      run: (run, cancel) => this.run(run, cancel),
      closeStream: (tenant, stream) => engine.closeStream(tenant, stream),
      checkpoint: (tenant) => engine.checkpoint(tenant),
      closeTenant: (tenant) => engine.closeTenant(tenant),
      onRestart: () => engine.onRestart(),
      close: () => engine.close(),
    };
  }
}

let directory: string;
let server: HranaServer;
let engine: OnePlaceEngine;
const streams = new StreamRegistry({ lockTimeoutMs: 1_000 });

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'cw-db-ws-drop-'));
  engine = new OnePlaceEngine(new LocalEngine({ directory }));
  const authorize = async (token: string | undefined) => ({ tenant: token ?? '' });
  server = await startHranaServer({
    port: 0,
    engine: engine.asEngine(),
    authorize: (request) => authorize(/^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1]),
    streams,
    websocket: { authorize, maxConnectionsPerDatabase: 3 },
  });
});

afterAll(async () => {
  await server.close();
  rmSync(directory, { recursive: true, force: true });
});

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('a WebSocket connection dropped while its request waits for its shard', () => {
  // As libsql's clients send a one-off statement: open_stream, execute, close_stream at once.
  it.each([{ closeQueued: false }, { closeQueued: true }])('gives the place up and runs nothing of it (close_stream queued: $closeQueued)', async ({ closeQueued }) => {
    const victim = createClient({ url: `http://127.0.0.1:${server.port}/v1/victim`, authToken: 'victim' });
    const hog = createClient({ url: `http://127.0.0.1:${server.port}/v1/hog`, authToken: 'hog' });
    await victim.execute('CREATE TABLE IF NOT EXISTS t (v TEXT)');
    const ranBefore = engine.ran.filter((tenant) => tenant === 'victim').length;
    engine.closeGate();
    const hogging = hog.execute('SELECT 1');
    await until(() => engine.ran.at(-1) === 'hog');

    const c = await openRawWebSocket(`ws://127.0.0.1:${server.port}/v1/victim`, 'hrana2');
    c.send({ type: 'hello', jwt: 'victim' });
    expect(await c.next()).toMatchObject({ type: 'hello_ok' });
    c.send({ type: 'request', request_id: 1, request: { type: 'open_stream', stream_id: 1 } });
    expect(await c.next()).toMatchObject({ type: 'response_ok', request_id: 1 });
    c.send({ type: 'request', request_id: 2, request: { type: 'execute', stream_id: 1, stmt: { sql: "INSERT INTO t VALUES ('after the drop')", want_rows: false } } });
    if (closeQueued) c.send({ type: 'request', request_id: 3, request: { type: 'close_stream', stream_id: 1 } });
    await until(() => engine.slots.waiting === 1);
    c.ws.terminate();
    await until(() => engine.slots.waiting === 0);

    engine.open();
    await hogging;
    expect((await victim.execute('SELECT count(*) AS n FROM t')).rows[0]?.n).toBe(0);
    expect(engine.ran.filter((tenant) => tenant === 'victim')).toHaveLength(ranBefore + 1); // the count, not the insert
    victim.close();
    hog.close();
  });
});
