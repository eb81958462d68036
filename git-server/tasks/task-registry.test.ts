import { describe, expect, it } from 'vitest';
import { PublicError } from '../../src/errors.ts';
import { StoreUnavailableError } from '../../src/object-store/object-store.ts';
import { TaskRegistry } from './task-registry.ts';
import { INTERNAL_ERROR_SUMMARY, type TaskLogger } from './task-outcome.ts';
import { LOG_TAIL_LINES } from './task-record.ts';
import type { TaskEvent } from './task.ts';
import { TasksDrainingError } from './tasks-draining-error.ts';
import { ControlledUnit } from './testing/controlled-unit.ts';

/** A clock that moves only when told. */
function clock(start = Date.parse('2026-01-02T03:04:05.000Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

/** A logger that keeps what it was given. */
function memoryLog() {
  const errors: { obj: Record<string, unknown>; msg: string }[] = [];
  const log: TaskLogger = { info: () => {}, error: (obj, msg) => errors.push({ obj: obj as Record<string, unknown>, msg }) };
  return { log, errors };
}

describe('TaskRegistry', () => {
  it('runs a task and records its progress, log and result', async () => {
    const time = clock();
    const tasks = new TaskRegistry({ instance: 'host-a:8090', now: time.now });
    const unit = new ControlledUnit();
    const { task, attached } = tasks.start('acme/site', 'compact', unit.run);
    expect(attached).toBe(false);
    expect(task.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(task.record()).toEqual({
      id: task.id,
      operation: 'compact',
      repo: 'acme/site',
      instance: 'host-a:8090',
      trigger: 'api',
      state: 'running',
      started_at: '2026-01-02T03:04:05.000Z',
      ended_at: null,
      elapsed_ms: 0,
      summary: null,
      progress: null,
      log_tail: [],
    });
    const ctx = await unit.started();
    ctx.progress(3, 10, 'repacking');
    ctx.log('packs: 17');
    time.advance(1500);
    expect(task.record()).toMatchObject({ state: 'running', elapsed_ms: 1500, progress: { done: 3, total: 10, phase: 'repacking' }, log_tail: ['packs: 17'] });
    unit.succeed('17 packs compacted into 2');
    const record = await task.done;
    expect(record).toMatchObject({ state: 'succeeded', summary: '17 packs compacted into 2', ended_at: '2026-01-02T03:04:06.500Z', elapsed_ms: 1500 });
    time.advance(1000);
    expect(task.record().elapsed_ms).toBe(1500); // frozen once ended
    expect(tasks.get(task.id)).toBe(task);
    expect(tasks.list()).toEqual({ instance: 'host-a:8090', running: [], recent: [record] });
  });

  it('attaches a second start of the same operation on the same repository to the running task', async () => {
    const tasks = new TaskRegistry({ instance: 'i', apiTasks: { perOwner: 10, total: 10 } });
    const first = new ControlledUnit();
    const second = new ControlledUnit();
    const a = tasks.start('acme/site', 'gc', first.run);
    const b = tasks.start('acme/site', 'gc', second.run, { trigger: 'maintainer' });
    expect(b).toEqual({ task: a.task, attached: true });
    // Another operation, or another repository: a task of its own.
    const other = new ControlledUnit();
    expect(tasks.start('acme/site', 'fsck', other.run).attached).toBe(false);
    expect(tasks.start('acme/other', 'gc', other.run).attached).toBe(false);
    expect(tasks.running()).toHaveLength(3);
    expect(tasks.list('acme/site').running.map((r) => r.operation)).toEqual(['gc', 'fsck']);
    await first.started();
    first.succeed();
    await a.task.done;
    expect(second.runs).toBe(0);
    // Once it ended, the same operation starts anew.
    const again = tasks.start('acme/site', 'gc', second.run);
    expect(again.attached).toBe(false);
    expect(again.task.id).not.toBe(a.task.id);
  });

  it('keeps only the newest keepRecent ended tasks', async () => {
    const tasks = new TaskRegistry({ instance: 'i', keepRecent: 2 });
    const ids: string[] = [];
    for (const op of ['checkpoint', 'compact', 'gc'] as const) {
      const unit = new ControlledUnit();
      const { task } = tasks.start('acme/site', op, unit.run);
      ids.push(task.id);
      await unit.started();
      unit.succeed(op);
      await task.done;
    }
    expect(tasks.list().recent.map((r) => r.summary)).toEqual(['gc', 'compact']);
    expect(tasks.get(ids[0] ?? '')).toBeUndefined();
    expect(tasks.get(ids[2] ?? '')?.operation).toBe('gc');
  });

  it("keeps each repository's own: another repository's many tasks push out their own oldest, not this one's (found in review)", async () => {
    const tasks = new TaskRegistry({ instance: 'i', keepRecent: 4, keepRecentPerRepo: 3 });
    const run = async (repo: string, op: 'checkpoint' | 'compact' | 'gc' | 'fsck') => {
      const unit = new ControlledUnit();
      const { task } = tasks.start(repo, op, unit.run);
      await unit.started();
      unit.succeed(`${repo} ${op}`);
      await task.done;
      return task.id;
    };
    const victims = [await run('victim/site', 'fsck')];
    for (let i = 0; i < 12; i++) await run('attacker/x', (['checkpoint', 'compact', 'gc'] as const)[i % 3]!);
    expect(tasks.get(victims[0]!)?.operation).toBe('fsck');
    expect(tasks.list().recent.filter((r) => r.repo === 'attacker/x')).toHaveLength(3);
    // Past the total, the repository with the most loses its oldest.
    victims.push(await run('victim/site', 'gc'));
    expect(
      tasks
        .list()
        .recent.map((r) => r.repo)
        .sort(),
    ).toEqual(['attacker/x', 'attacker/x', 'victim/site', 'victim/site']);
  });

  it('interruptAll aborts every running task, resolves once all ended, and refuses new tasks', async () => {
    const tasks = new TaskRegistry({ instance: 'i' });
    const units = [new ControlledUnit(), new ControlledUnit()];
    const started = units.map((unit, n) => tasks.start(`acme/r${n}`, 'compact', unit.run).task);
    const contexts = await Promise.all(units.map((unit) => unit.started()));
    await tasks.interruptAll();
    expect(contexts.every((ctx) => ctx.signal.aborted)).toBe(true);
    for (const task of started) {
      expect(task.record()).toMatchObject({ state: 'interrupted', summary: 'interrupted: the instance is shutting down; the next maintenance pass runs it again' });
    }
    expect(tasks.running()).toEqual([]);
    expect(() => tasks.start('acme/r0', 'gc', new ControlledUnit().run)).toThrow(TasksDrainingError);
  });

  it('says why a task was interrupted: a maintainer unit cut at its deadline is not a shutdown, whatever layer stopped it', async () => {
    const tasks = new TaskRegistry({ instance: 'i' });
    const deadline = new Error('the unit ran past its deadline of 1800 s');
    const unit = new ControlledUnit();
    const { task } = tasks.start('acme/site', 'compact', unit.run, { trigger: 'maintainer' });
    await unit.started();
    task.interrupt(deadline);
    expect(await task.done).toMatchObject({ state: 'interrupted', summary: 'interrupted: the unit ran past its deadline of 1800 s; the next maintenance pass runs it again' });
    const git = tasks.start('acme/site', 'fsck', (ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))), {
      trigger: 'maintainer',
    }).task;
    git.interrupt(deadline);
    expect((await git.done).summary).toBe('interrupted: the unit ran past its deadline of 1800 s; the next maintenance pass runs it again');
  });

  it('counts a unit cut short by the abort signal as interrupted, whatever layer said so', async () => {
    const tasks = new TaskRegistry({ instance: 'i' });
    const { task } = tasks.start('acme/site', 'fsck', (ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))));
    await tasks.interruptAll();
    expect(task.record().state).toBe('interrupted');
  });

  it('tells listeners each event in order, the end last, and forgets them', async () => {
    const tasks = new TaskRegistry({ instance: 'i' });
    const unit = new ControlledUnit();
    const { task } = tasks.start('acme/site', 'compact', unit.run);
    const heard: TaskEvent[] = [];
    const early: TaskEvent[] = [];
    task.subscribe((event) => heard.push(event));
    const unsubscribe = task.subscribe((event) => early.push(event));
    expect(task.listenerCount).toBe(2);
    const ctx = await unit.started();
    ctx.progress(1, 4, 'listing');
    unsubscribe();
    expect(task.listenerCount).toBe(1);
    ctx.log('one');
    unit.succeed('ok');
    const record = await task.done;
    expect(heard).toEqual([
      { kind: 'progress', progress: { done: 1, total: 4, phase: 'listing' } },
      { kind: 'log', line: 'one' },
      { kind: 'ended', record },
    ]);
    expect(early).toEqual([{ kind: 'progress', progress: { done: 1, total: 4, phase: 'listing' } }]);
    expect(task.listenerCount).toBe(0);
    // An ended task has nothing more to say: subscribing calls nothing.
    const late: TaskEvent[] = [];
    task.subscribe((event) => late.push(event));
    expect([late, task.listenerCount]).toEqual([[], 0]);
    // Reports after the end are ignored.
    ctx.log('after');
    expect(task.record().log_tail).toEqual(['one']);
  });

  it('drops a listener that throws and goes on', async () => {
    const { log, errors } = memoryLog();
    const tasks = new TaskRegistry({ instance: 'i', log });
    const unit = new ControlledUnit();
    const { task } = tasks.start('acme/site', 'gc', unit.run);
    task.subscribe(() => {
      throw new Error('broken pipe');
    });
    (await unit.started()).log('line');
    expect(task.listenerCount).toBe(0);
    expect(errors.map((e) => e.msg)).toEqual(['task listener failed; dropped']);
    unit.succeed();
    expect((await task.done).state).toBe('succeeded');
  });

  it('keeps the last log lines only', async () => {
    const tasks = new TaskRegistry({ instance: 'i' });
    const unit = new ControlledUnit();
    const { task } = tasks.start('acme/site', 'fsck', unit.run);
    const ctx = await unit.started();
    for (let n = 1; n <= LOG_TAIL_LINES + 10; n++) ctx.log(`line ${n}`);
    const tail = task.record().log_tail;
    expect(tail).toHaveLength(LOG_TAIL_LINES);
    expect([tail[0], tail.at(-1)]).toEqual(['line 11', `line ${LOG_TAIL_LINES + 10}`]);
  });

  describe('the summary of a failure', () => {
    async function failWith(error: unknown) {
      const { log, errors } = memoryLog();
      const tasks = new TaskRegistry({ instance: 'i', log });
      const unit = new ControlledUnit();
      const { task } = tasks.start('acme/site', 'gc', unit.run);
      await unit.started();
      unit.fail(error);
      return { record: await task.done, errors };
    }

    it('is the public message of a store outage, nothing more', async () => {
      const { record, errors } = await failWith(new StoreUnavailableError('put', new Error('connect ECONNREFUSED 10.1.2.3:9000')));
      expect(record).toMatchObject({ state: 'failed', summary: 'The object store is unavailable; retry later.' });
      expect(errors).toEqual([]);
    });

    it('is the first line of a public error', async () => {
      const { record } = await failWith(new PublicError(409, 'the lease is held by host-b\nuntil 10:00'));
      expect(record).toMatchObject({ state: 'failed', summary: 'the lease is held by host-b' });
    });

    it('points to the log for anything else, which is logged', async () => {
      const error = new Error('ENOENT: /var/cache/cw-git/repos/acme/site.git/objects/pack');
      const { record, errors } = await failWith(error);
      expect(record).toMatchObject({ state: 'failed', summary: INTERNAL_ERROR_SUMMARY });
      expect(errors).toEqual([{ obj: { err: error, task: record.id, repo: 'acme/site', operation: 'gc' }, msg: 'task failed' }]);
    });

    it('is logged too when the unit throws something that is not an Error', async () => {
      const { record, errors } = await failWith('a string');
      expect(record.summary).toBe(INTERNAL_ERROR_SUMMARY);
      expect(errors).toHaveLength(1);
    });
  });

  it('runs at most so many tasks asked for over the API: per owner (429) and in all (503); the maintainer’s are not counted', async () => {
    const tasks = new TaskRegistry({ instance: 'host-a:8090', apiTasks: { perOwner: 2, total: 3 } });
    const units = Array.from({ length: 4 }, () => new ControlledUnit());
    tasks.start('acme/one', 'gc', units[0]!.run);
    tasks.start('acme/two', 'gc', units[1]!.run);
    // The same operation on the same repository attaches: nothing more runs.
    expect(tasks.start('acme/two', 'gc', units[3]!.run).attached).toBe(true);
    expect(() => tasks.start('acme/three', 'gc', units[3]!.run)).toThrow(expect.objectContaining({ status: 429, code: 'owner_tasks_limit' }));
    tasks.start('acme/three', 'gc', units[3]!.run, { trigger: 'maintainer' });
    tasks.start('umbrella/site', 'fsck', units[2]!.run);
    expect(() => tasks.start('wayne/site', 'gc', units[3]!.run)).toThrow(expect.objectContaining({ status: 503, code: 'tasks_busy' }));
    units[0]!.succeed();
    await tasks.get(tasks.running()[0]!.id)?.done;
    expect(tasks.start('wayne/site', 'gc', new ControlledUnit().run).attached).toBe(false);
  });

  it('counts the tasks one caller asked for across every owner: one person with many projects has one share', () => {
    const tasks = new TaskRegistry({ instance: 'host-a:8090', apiTasks: { perOwner: 2, total: 4 } });
    const run = () => new ControlledUnit().run;
    tasks.start('p1/site', 'gc', run(), { trigger: 'api', by: 'mallory' });
    tasks.start('p2/site', 'gc', run(), { trigger: 'api', by: 'mallory' });
    expect(() => tasks.start('p3/site', 'gc', run(), { trigger: 'api', by: 'mallory' })).toThrow(
      expect.objectContaining({ status: 429, code: 'owner_tasks_limit', message: expect.stringContaining('mallory has 2') }),
    );
    // Another person's, on one of those projects' repositories too, still runs.
    expect(tasks.start('p1/other', 'gc', run(), { trigger: 'api', by: 'ada' }).attached).toBe(false);
  });
});
