// The tenant lock around a request on a stream: a close of the stream while its request runs (an in-place restore,
// the database closing) ends the stream after the request's statements, never between them, and the lock stays
// with the request until it has finished, commit capture included; it was handed to the next stream while the
// statement could still run. A stream closed while its request waited for the lock runs nothing.
import { describe, expect, it } from 'vitest';
import type { DatabaseEngine, PipelineOutcome, PipelineRun } from '../shards/engine-port.ts';
import { ProjectSlots } from '../shards/project-slots.ts';
import { handlePipeline, runOnStream } from './pipeline.ts';
import { StreamHandle, StreamRegistry } from './stream-registry.ts';

/** The engine port, faked: each run waits until the test lets it finish, answering as a statement in a transaction would. */
class GatedEngine {
  readonly runs: Array<{ run: PipelineRun; finish: (outcome: Partial<PipelineOutcome>) => void }> = [];
  readonly closed: string[] = [];
  run(run: PipelineRun): Promise<PipelineOutcome> {
    return new Promise((resolve) => {
      this.runs.push({ run, finish: (outcome) => resolve({ results: [], autocommit: true, closed: false, counts: { rowsRead: 0, rowsWritten: 0 }, ...outcome } as PipelineOutcome) });
    });
  }
  closeStream(_tenant: string, stream: string): Promise<void> {
    this.closed.push(stream);
    return Promise.resolve();
  }
}

/** The gated engine behind a shard's places for running requests, as the shard pool has them. */
class SlottedEngine extends GatedEngine {
  readonly slots: ProjectSlots;
  constructor(places: number) {
    super();
    this.slots = new ProjectSlots(places);
  }
  override async run(run: PipelineRun, cancel?: AbortSignal): Promise<PipelineOutcome> {
    // Every database of one project: a request waits for the place, as none is lent within a project.
    const release = await this.slots.acquire('one project', cancel);
    try {
      return await super.run(run);
    } finally {
      release();
    }
  }
}

const execute = { type: 'execute', stmt: { sql: 'UPDATE t SET n = n + 1' } };

/** A shard of one place, taken by the `hog` database's request (running until the test finishes it). */
async function shardTakenByHog() {
  const streams = new StreamRegistry({ lockTimeoutMs: 5_000 });
  const engine = new SlottedEngine(1);
  streams.endStreamsWith((stream) => engine.closeStream(stream.tenant, stream.id));
  const context = { streams, engine: engine as unknown as DatabaseEngine };
  const hog = runOnStream(streams.create('hog', false) as StreamHandle, { tenant: 'hog' }, [execute], context);
  await until(() => engine.runs.length === 1);
  return { streams, engine, context, hog };
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

describe('a stream closed while its request runs', () => {
  it('keeps its tenant locked until the request, its capture included, has finished, and stays closed', async () => {
    const streams = new StreamRegistry({ lockTimeoutMs: 5_000 });
    const engine = new GatedEngine();
    streams.endStreamsWith((stream) => engine.closeStream(stream.tenant, stream.id));
    let captures = 0;
    let captured: () => void = () => {};
    const context = {
      streams,
      engine: engine as unknown as DatabaseEngine,
      afterCommit: () => {
        captures++;
        return new Promise<{ durable?: Promise<void> }>((resolve) => (captured = () => resolve({})));
      },
    };
    const held = streams.create('db', false) as StreamHandle;
    streams.hold(held);
    const running = runOnStream(held, { tenant: 'db' }, [execute], context);
    await until(() => engine.runs.length === 1);

    // The database closes (a restore, a release): the stream is closed while its statement runs. Nothing reaches the
    // engine meanwhile (a rollback between two of its statements would leave the rest autocommitted).
    let closed = false;
    const closing = streams.closeTenants((tenant) => tenant === 'db').then(() => (closed = true));
    await until(() => held.closed);
    expect(engine.closed).toEqual([]);
    expect(streams.lockFor('db').holder).toBe(held);

    // Another stream of the tenant waits for the lock until the first request has finished, capture included.
    const next = streams.create('db', false) as StreamHandle;
    const after = runOnStream(next, { tenant: 'db' }, [execute], context);
    engine.runs[0]!.finish({ autocommit: false });
    // The request left a transaction open: its stream is ended where its SQL runs now, after its statements.
    await until(() => captures === 1);
    expect(engine.closed).toEqual([held.id]);
    expect(streams.lockFor('db').holder).toBe(held);
    expect(engine.runs).toHaveLength(1);
    expect(closed).toBe(false);
    captured();
    await expect(running).resolves.toMatchObject({ kind: 'ran' });
    await closing;
    // The stream is closed, outside any transaction (what it left open was rolled back).
    expect(held.closed).toBe(true);
    expect(held.inTransaction).toBe(false);
    await until(() => engine.runs.length === 2);
    expect(streams.lockFor('db').holder).toBe(next);
    engine.runs[1]!.finish({});
    await until(() => captures === 2);
    captured();
    await expect(after).resolves.toMatchObject({ kind: 'ran' });
    expect(streams.isBusy('db')).toBe(false);
  });

  it('runs nothing on a stream closed while its request waited for the lock, and says why', async () => {
    const streams = new StreamRegistry({ lockTimeoutMs: 5_000 });
    const engine = new GatedEngine();
    streams.endStreamsWith((stream) => engine.closeStream(stream.tenant, stream.id));
    const context = { streams, engine: engine as unknown as DatabaseEngine };
    const first = streams.create('db', false) as StreamHandle;
    const waiting = streams.create('db', false) as StreamHandle;
    streams.hold(waiting);
    const running = runOnStream(first, { tenant: 'db' }, [execute], context);
    await until(() => engine.runs.length === 1);
    const queued = runOnStream(waiting, { tenant: 'db' }, [execute], context);
    // The server ends it while it waits (a restore says why).
    waiting.endedBy = { message: 'restored', code: 'RESTORED' };
    await streams.close(waiting);
    engine.runs[0]!.finish({});
    await running;
    await expect(queued).resolves.toEqual({ kind: 'refused', result: { type: 'error', error: { message: 'restored', code: 'RESTORED' } } });
    expect(engine.runs).toHaveLength(1);
    expect(streams.isBusy('db')).toBe(false);
  });

  it('runs nothing for a request still waiting for its shard when its stream closes (a WebSocket connection gone), and frees the lock', async () => {
    const { streams, engine, context, hog } = await shardTakenByHog();
    const stream = streams.create('db', false) as StreamHandle;
    streams.hold(stream);
    const waiting = runOnStream(stream, { tenant: 'db' }, [execute], context);
    await until(() => engine.slots.waiting === 1);

    let closed = false;
    const closing = streams.close(stream).then(() => (closed = true));
    await expect(waiting).resolves.toEqual({ kind: 'refused', result: { type: 'error', error: { message: 'The stream was closed by the server', code: 'STREAM_CLOSED' } } });
    await closing;
    expect(closed).toBe(true);
    expect(engine.closed).toEqual([stream.id]);
    expect(engine.slots.waiting).toBe(0);
    expect(streams.isBusy('db')).toBe(false);
    engine.runs[0]!.finish({});
    await hog;
    expect(engine.runs.map((r) => r.run.tenant)).toEqual(['hog']);
  });

  it('runs nothing for an HTTP pipeline whose client went while it waited for its shard, and parks no stream', async () => {
    const { streams, engine, context, hog } = await shardTakenByHog();
    const gone = new AbortController();
    const answer = handlePipeline({ tenant: 'db', body: { baton: null, requests: [execute] }, gone: gone.signal }, context);
    await until(() => engine.slots.waiting === 1);
    gone.abort();
    await expect(answer).resolves.toMatchObject({ status: 200, body: { baton: null, results: [{ type: 'error', error: { code: 'STREAM_CLOSED' } }] } });
    expect(engine.slots.waiting).toBe(0);
    expect(streams.isBusy('db')).toBe(false);
    engine.runs[0]!.finish({});
    await hog;
    expect(engine.runs.map((r) => r.run.tenant)).toEqual(['hog']);
  });

  it('ends in the engine a stream closed while its commit is captured', async () => {
    const streams = new StreamRegistry({ lockTimeoutMs: 5_000 });
    const engine = new GatedEngine();
    streams.endStreamsWith((stream) => engine.closeStream(stream.tenant, stream.id));
    let captured: () => void = () => {};
    let capturing = false;
    const context = {
      streams,
      engine: engine as unknown as DatabaseEngine,
      afterCommit: () => {
        capturing = true;
        return new Promise<{ durable?: Promise<void> }>((resolve) => (captured = () => resolve({})));
      },
    };
    const stream = streams.create('db', false) as StreamHandle;
    streams.hold(stream);
    const running = runOnStream(stream, { tenant: 'db' }, [execute], context);
    await until(() => engine.runs.length === 1);
    engine.runs[0]!.finish({});
    await until(() => capturing);
    const closing = streams.close(stream);
    captured();
    await expect(running).resolves.toMatchObject({ kind: 'ran' });
    await closing;
    expect(engine.closed).toEqual([stream.id]);
    expect(streams.isBusy('db')).toBe(false);
  });
});
