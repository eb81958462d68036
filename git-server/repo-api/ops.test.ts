// The operations, tasks and overview routes through the whole cw-git app (memory bucket, real cache), with a
// maintenance runner whose units the test drives step by step. Streams are read over real HTTP, message by message.
import { EventEmitter, once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RepoCache } from '../plumbing/repo-cache.ts';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import type { MaintenanceRunner, OperationId, UnitContext, UnitResult } from '../../src/repo-maintenance/operation.ts';
import { RepoStore } from '../../src/repo-store/index.ts';
import { BucketRepositoryDirectory } from '../repositories/bucket-repository-directory.ts';
import { buildGitServer } from '../app.ts';
import { mintToken } from '../auth/index.ts';
import { DrainState } from '../drain.ts';
import { ServiceMetrics } from '../metrics.ts';
import { INTERNAL_ERROR_SUMMARY } from '../tasks/task-outcome.ts';
import { TaskRegistry } from '../tasks/task-registry.ts';
import { ControlledUnit } from '../tasks/testing/controlled-unit.ts';
import { EventStream, parseEventStream } from './testing/event-stream-client.ts';

const SECRET = 'ops-test-secret-of-at-least-32-bytes!!';
const write = { authorization: `Bearer ${mintToken({ sub: 'ada', scopes: ['read', 'write'] }, SECRET)}` };
const read = { authorization: `Bearer ${mintToken({ sub: 'rex', scopes: ['read'] }, SECRET)}` };
const ORIGIN = 'https://app.example.com';

/** A maintenance runner whose every unit is a ControlledUnit the test drives. */
class FakeMaintenance implements MaintenanceRunner {
  readonly calls: { repo: string; op: string; unit: ControlledUnit }[] = [];
  readonly #events = new EventEmitter();

  run(repo: string, op: Exclude<OperationId, 'sync'>, ctx: UnitContext): Promise<UnitResult> {
    const unit = new ControlledUnit();
    this.calls.push({ repo, op, unit });
    const result = unit.run(ctx);
    this.#events.emit('run');
    return result;
  }

  /** The unit of the `n`th call (0-based), once it runs. */
  async unit(n: number): Promise<ControlledUnit> {
    while (this.calls.length <= n) await once(this.#events, 'run');
    return (this.calls[n] as { unit: ControlledUnit }).unit;
  }
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function setup(options: { maintenance?: boolean; keepaliveMs?: number; listen?: boolean } = {}) {
  const objects = new MemoryObjectStore();
  const repos = new RepoStore({ store: objects });
  const cache = new RepoCache({ repos, dir: await mkdtemp(join(tmpdir(), 'cw-git-ops-')) });
  const tasks = new TaskRegistry({ instance: 'git-0:8090', keepaliveMs: options.keepaliveMs ?? 60_000 });
  const maintenance = new FakeMaintenance();
  app = await buildGitServer({
    repos,
    objects,
    cache,
    directory: new BucketRepositoryDirectory(repos),
    auth: { tokenSecret: SECRET },
    metrics: new ServiceMetrics(new Registry()),
    drain: new DrainState(),
    corsOrigins: [ORIGIN],
    tasks,
    ...(options.maintenance === false ? {} : { maintenance }),
  });
  expect((await app.inject({ method: 'PUT', url: '/acme/site', headers: write })).statusCode).toBe(201);
  let url = '';
  if (options.listen) {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }
  return { app, tasks, maintenance, url };
}

describe('POST /api/ops/{op}', () => {
  it('starts a task: 202 with the record and its Location; a second POST attaches to it', async () => {
    const t = await setup();
    const started = await t.app.inject({ method: 'POST', url: '/acme/site/api/ops/compact', headers: write });
    expect(started.statusCode).toBe(202);
    const record = started.json<{ id: string }>();
    expect(record).toMatchObject({ operation: 'compact', repo: 'acme/site', instance: 'git-0:8090', trigger: 'api', state: 'running', ended_at: null, summary: null, attached: false });
    expect(started.headers.location).toBe(`/acme/site/api/tasks/${record.id}`);
    const unit = await t.maintenance.unit(0);
    expect(t.maintenance.calls.map(({ repo, op }) => ({ repo, op }))).toEqual([{ repo: 'acme/site', op: 'compact' }]);

    const again = await t.app.inject({ method: 'POST', url: '/acme/site/api/ops/compact', headers: { ...write, 'content-type': 'application/json' }, payload: '{}' });
    expect([again.statusCode, again.json(), again.headers.location]).toEqual([202, expect.objectContaining({ id: record.id, attached: true }), started.headers.location]);
    expect(t.maintenance.calls).toHaveLength(1);

    unit.ctx.progress(2, 5, 'repacking');
    unit.ctx.log('17 packs');
    const running = await t.app.inject({ method: 'GET', url: started.headers.location, headers: read });
    expect(running.json()).toMatchObject({ id: record.id, state: 'running', progress: { done: 2, total: 5, phase: 'repacking' }, log_tail: ['17 packs'] });

    unit.succeed('17 packs compacted into 2');
    await t.tasks.get(record.id)?.done;
    const ended = await t.app.inject({ method: 'GET', url: started.headers.location, headers: read });
    expect(ended.json()).toMatchObject({ state: 'succeeded', summary: '17 packs compacted into 2' });
    expect(ended.json<{ ended_at: string }>().ended_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const list = await t.app.inject({ method: 'GET', url: '/acme/site/api/tasks', headers: read });
    expect(list.json()).toEqual({ instance: 'git-0:8090', running: [], recent: [ended.json()] });
  });

  it('accepts no body, an empty JSON body and {}; refuses parameters', async () => {
    const t = await setup({ maintenance: false });
    const json = { ...write, 'content-type': 'application/json' };
    for (const payload of ['', '{}']) {
      expect((await t.app.inject({ method: 'POST', url: '/acme/site/api/ops/sync', headers: json, payload })).statusCode).toBe(202);
    }
    const params = await t.app.inject({ method: 'POST', url: '/acme/site/api/ops/sync', headers: json, payload: '{"full":true}' });
    expect([params.statusCode, params.json().error]).toEqual([400, 'invalid_request']);
  });

  it('answers an unknown operation 404 listing the operations, an unknown repository 404, a read token 403', async () => {
    const t = await setup();
    const unknown = await t.app.inject({ method: 'POST', url: '/acme/site/api/ops/repack', headers: write });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({
      error: 'unknown_operation',
      message: '"repack" is not an operation; the operations are checkpoint, compact, gc, fsck, sync.',
      operations: ['checkpoint', 'compact', 'gc', 'fsck', 'sync'],
      retryable: false,
    });
    const noRepo = await t.app.inject({ method: 'POST', url: '/acme/nope/api/ops/gc', headers: write });
    expect([noRepo.statusCode, noRepo.json().error]).toEqual([404, 'repository_not_found']);
    const readOnly = await t.app.inject({ method: 'POST', url: '/acme/site/api/ops/fsck', headers: read });
    expect([readOnly.statusCode, readOnly.json().error]).toEqual([403, 'forbidden']);
    expect(t.maintenance.calls).toEqual([]);
  });

  it('runs sync without a maintenance runner (this instance’s copy, brought to the head); the bucket operations answer 501', async () => {
    const t = await setup({ maintenance: false });
    const sync = await t.app.inject({ method: 'POST', url: '/acme/site/api/ops/sync', headers: { ...write, accept: 'text/event-stream' } });
    const messages = parseEventStream(sync.body);
    // The first progress came before the stream subscribed: the `task` snapshot carries it.
    expect(messages.map((m) => ('event' in m ? m.event : m.comment))).toEqual(['task', 'log', 'progress', 'result']);
    expect(messages[0]).toEqual({ event: 'task', data: expect.objectContaining({ state: 'running', progress: { done: 0, total: 1, phase: 'syncing' } }) });
    expect(messages.at(-1)).toEqual({ event: 'result', data: expect.objectContaining({ state: 'succeeded', summary: "This instance's copy of acme/site is at seq 0." }) });
    const gc = await t.app.inject({ method: 'POST', url: '/acme/site/api/ops/gc', headers: write });
    expect([gc.statusCode, gc.json().error]).toEqual([501, 'operation_unavailable']);
  });

  it('is refused once the instance drains (the registry interrupted its tasks)', async () => {
    const t = await setup();
    await t.tasks.interruptAll();
    const refused = await t.app.inject({ method: 'POST', url: '/acme/site/api/ops/fsck', headers: write });
    expect([refused.statusCode, refused.headers['retry-after'], refused.json().error]).toEqual([503, '15', 'draining']);
  });
});

describe('following a task over SSE', () => {
  it('streams task, progress, log and result in order, then closes', async () => {
    const t = await setup({ listen: true });
    const stream = await EventStream.open(`${t.url}/acme/site/api/ops/fsck`, { method: 'POST', headers: write });
    expect(stream.status).toBe(200);
    expect(stream.headers).toMatchObject({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    const first = await stream.next({ events: true });
    expect(first).toEqual({ event: 'task', data: expect.objectContaining({ operation: 'fsck', state: 'running', progress: null }) });
    const id = (first as { data: { id: string } }).data.id;
    expect(stream.headers.location).toBe(`/acme/site/api/tasks/${id}`);

    const unit = await t.maintenance.unit(0);
    unit.ctx.progress(1, 3, 'checking');
    expect(await stream.next({ events: true })).toEqual({ event: 'progress', data: { done: 1, total: 3, phase: 'checking' } });
    unit.ctx.log('checking objects: 100% (12/12)');
    expect(await stream.next({ events: true })).toEqual({ event: 'log', data: { line: 'checking objects: 100% (12/12)' } });
    unit.succeed('no missing objects');
    expect(await stream.next({ events: true })).toEqual({
      event: 'result',
      data: expect.objectContaining({ id, state: 'succeeded', summary: 'no missing objects', log_tail: ['checking objects: 100% (12/12)'] }),
    });
    expect(await stream.next()).toBeUndefined();
  });

  it('sends keepalive comments while quiet, and lets go of the task when the client leaves', async () => {
    const t = await setup({ listen: true, keepaliveMs: 20 });
    const started = await t.app.inject({ method: 'POST', url: '/acme/site/api/ops/gc', headers: write });
    const id = started.json<{ id: string }>().id;
    const task = t.tasks.get(id);
    const stream = await EventStream.open(`${t.url}${started.headers.location}`, { headers: read });
    expect(await stream.next()).toEqual({ event: 'task', data: expect.objectContaining({ id, state: 'running' }) });
    expect(await stream.next()).toEqual({ comment: 'keepalive' });
    expect(task?.listenerCount).toBe(1);
    stream.close();
    await vi.waitFor(() => expect(task?.listenerCount).toBe(0));
    (await t.maintenance.unit(0)).succeed();
    expect((await task?.done)?.state).toBe('succeeded');
  });

  it('ends with an error event when the drain interrupts the task', async () => {
    const t = await setup({ listen: true });
    const stream = await EventStream.open(`${t.url}/acme/site/api/ops/checkpoint`, { method: 'POST', headers: write });
    expect(await stream.next({ events: true })).toMatchObject({ event: 'task' });
    await t.maintenance.unit(0);
    await t.tasks.interruptAll();
    expect(await stream.next({ events: true })).toEqual({ event: 'error', data: expect.objectContaining({ state: 'interrupted', operation: 'checkpoint' }) });
    expect(await stream.next()).toBeUndefined();
  });

  it('answers an ended task with its snapshot, then its terminal event', async () => {
    const t = await setup();
    const started = await t.app.inject({ method: 'POST', url: '/acme/site/api/ops/gc', headers: write });
    (await t.maintenance.unit(0)).fail(new Error('ENOENT: /var/cache/cw-git/tmp/gc'));
    await t.tasks.get(started.json<{ id: string }>().id)?.done;
    const followed = await t.app.inject({ method: 'GET', url: started.headers.location as string, headers: { ...read, accept: 'text/event-stream' } });
    const failed = expect.objectContaining({ state: 'failed', summary: INTERNAL_ERROR_SUMMARY });
    expect(parseEventStream(followed.body)).toEqual([
      { event: 'task', data: failed },
      { event: 'error', data: failed },
    ]);
  });

  it('carries the browser lane’s CORS headers, and a Location on that lane', async () => {
    const t = await setup({ maintenance: false });
    const followed = await t.app.inject({ method: 'POST', url: '/acme/site/api-browser/ops/sync', headers: { ...write, origin: ORIGIN, accept: 'text/event-stream' } });
    expect(followed.headers).toMatchObject({ 'access-control-allow-origin': ORIGIN, 'content-type': 'text/event-stream' });
    expect(followed.headers.location).toMatch(/^\/acme\/site\/api-browser\/tasks\/[A-Za-z0-9_-]+$/);
    expect(parseEventStream(followed.body).at(-1)).toMatchObject({ event: 'result' });
  });
});

describe('GET /api/ops and /api/tasks', () => {
  it('list the operations, and the repository’s tasks on this instance only', async () => {
    const t = await setup();
    const ops = await t.app.inject({ method: 'GET', url: '/acme/site/api/ops', headers: read });
    expect(ops.statusCode).toBe(200);
    expect(ops.json<{ operations: { id: string; writes: boolean }[] }>().operations.map(({ id, writes }) => [id, writes])).toEqual([
      ['checkpoint', true],
      ['compact', true],
      ['gc', true],
      ['fsck', false],
      ['sync', false],
    ]);
    expect(ops.json().recent).toEqual([]);

    await t.app.inject({ method: 'PUT', url: '/acme/other', headers: write });
    const mine = (await t.app.inject({ method: 'POST', url: '/acme/site/api/ops/fsck', headers: write })).json<{ id: string }>();
    const theirs = (await t.app.inject({ method: 'POST', url: '/acme/other/api/ops/fsck', headers: write })).json<{ id: string }>();
    expect((await t.app.inject({ method: 'GET', url: '/acme/site/api/ops', headers: read })).json().recent).toEqual([expect.objectContaining({ id: mine.id, state: 'running' })]);
    const tasks = await t.app.inject({ method: 'GET', url: '/acme/site/api/tasks', headers: read });
    expect(tasks.json()).toEqual({ instance: 'git-0:8090', running: [expect.objectContaining({ id: mine.id })], recent: [] });
    // Another repository's task is not found here, nor is an id no task has.
    for (const id of [theirs.id, 'no-such-task']) {
      const missing = await t.app.inject({ method: 'GET', url: `/acme/site/api/tasks/${id}`, headers: read });
      expect([missing.statusCode, missing.json().error]).toEqual([404, 'task_not_found']);
    }
  });
});

describe('GET /api/overview', () => {
  it('describes a fresh repository', async () => {
    const t = await setup();
    const overview = await t.app.inject({ method: 'GET', url: '/acme/site/api/overview', headers: read });
    expect(overview.statusCode).toBe(200);
    expect(overview.json()).toEqual({
      repo: 'acme/site',
      head_seq: 0,
      log_start: 1,
      packs: { count: 0, bytes: 0 },
      refs: { count: 0, max: 10_000 },
      storage: { bytes: 0, lfs_bytes: 0, quota_bytes: 10 * 1024 ** 3, owner_bytes: 0, owner_quota_bytes: 50 * 1024 ** 3 },
      checkpoint: null,
      entries_since_checkpoint: 0,
      last_compaction: null,
      last_fsck: null,
      last_gc: null,
      pending: { marker: false, checkpoint_due: false, compaction_due: false },
      lease: null,
      maintainers: [],
      health: { status: 'ok', problems: [] },
    });
    const missing = await t.app.inject({ method: 'GET', url: '/acme/nope/api/overview', headers: read });
    expect([missing.statusCode, missing.json().error]).toEqual([404, 'repository_not_found']);
  });
});
