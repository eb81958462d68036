import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { UnitInterruptedError, type UnitContext } from '../src/repo-maintenance/operation.ts';
import { maintainerTasks } from './maintenance-role.ts';
import { TaskRegistry } from './tasks/task-registry.ts';

/** A unit that runs until it is interrupted. */
const endless = {
  run: (_repo: string, _op: string, ctx: UnitContext) => new Promise<never>((_, reject) => ctx.signal.addEventListener('abort', () => reject(new UnitInterruptedError()), { once: true })),
};
const log = pino({ level: 'silent' });

describe('maintainerTasks', () => {
  it("interrupts the maintainer's unit when its deadline aborts (review-177 F6)", async () => {
    const tasks = new TaskRegistry({ instance: 't' });
    const deadline = new AbortController();
    const outcome = maintainerTasks(tasks, endless, log)('acme/site', 'fsck', deadline.signal);
    expect(tasks.running()).toHaveLength(1);
    deadline.abort(new Error('the unit ran past its deadline'));
    await expect(outcome).resolves.toBe('interrupted');
    expect(tasks.list().recent[0]).toMatchObject({ state: 'interrupted', trigger: 'maintainer' });
  });

  it('stops waiting at the deadline for a unit an API request started, and leaves it running: that request stops it (review-181 M1)', async () => {
    const tasks = new TaskRegistry({ instance: 't' });
    const { task } = tasks.start('acme/site', 'fsck', (ctx) => endless.run('acme/site', 'fsck', ctx), { trigger: 'api' });
    const deadline = new AbortController();
    const outcome = maintainerTasks(tasks, endless, log)('acme/site', 'fsck', deadline.signal);
    let settled = false;
    void outcome.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    deadline.abort(new Error('the unit ran past its deadline'));
    await expect(outcome).resolves.toBe('interrupted');
    expect(task.state).toBe('running');
    task.interrupt();
    await task.done;
  });
});
