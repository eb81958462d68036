// Maintenance in a cw-git instance: the runner behind `POST /api/ops/{op}` (every instance), the maintainer's
// schedule (instances with the `maintain` role), and the first phase of the drain: no new unit starts, the
// running ones are interrupted, serving goes on (spec "Server drain on SIGTERM").
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { ObjectStore } from '../src/object-store/object-store.ts';
import { RepoMaintenance } from '../src/repo-maintenance/index.ts';
import type { MaintenanceRunner } from '../src/repo-maintenance/operation.ts';
import type { RepoStore } from '../src/repo-store/repo-store.ts';
import type { GitServiceConfig } from './config/index.ts';
import { Maintainer, missingObjectsGauge, type MaintainerOptions } from './maintainer.ts';
import type { TaskRegistry } from './tasks/task-registry.ts';

/** The maintenance drain's bound (spec Limits). */
export const MAINTENANCE_DRAIN_MS = 30_000;

export interface MaintenanceRole {
  readonly runner: RepoMaintenance;
  /** Starts the maintainer's passes, when this instance has the `maintain` role. */
  start(log: FastifyBaseLogger): void;
  /** Phase one of the drain: stops the schedule, interrupts the running units, resolves when they ended or `boundMs` passed. */
  drain(boundMs?: number): Promise<void>;
}

export function maintenanceRole(options: { config: GitServiceConfig; repos: RepoStore; objects: ObjectStore; registry: Registry; tasks: TaskRegistry }): MaintenanceRole {
  const { config, repos, objects, registry, tasks } = options;
  const missing = missingObjectsGauge(registry);
  const runner = new RepoMaintenance({
    repos,
    store: objects,
    host: tasks.instance,
    workDir: join(config.cache.dir, 'maintain'),
    logRetentionMs: config.maintenance.logRetentionMs,
    graceMs: config.maintenance.gracePeriodMs,
    onFsck: (repo, record) => missing.set({ repo }, record.missingObjects),
  });
  let maintainer: Maintainer | undefined;
  return {
    runner,
    start(log) {
      if (!config.server.roles.includes('maintain')) return;
      maintainer = new Maintainer({
        repos,
        store: objects,
        context: { workDir: join(config.cache.dir, 'maintain'), now: () => new Date(), graceMs: config.maintenance.gracePeriodMs },
        host: tasks.instance,
        intervalMs: config.maintenance.intervalMs,
        registry,
        log,
        runTask: maintainerTasks(tasks, runner, log),
        unitDeadlineMs: config.maintenance.unitDeadlineMs,
        ownerBudgetMs: config.maintenance.ownerBudgetMs,
      });
      maintainer.start();
    },
    async drain(boundMs = MAINTENANCE_DRAIN_MS) {
      maintainer?.stop();
      await Promise.race([Promise.all([tasks.interruptAll(), maintainer?.idle()]), sleep(boundMs)]);
    },
  };
}

/**
 * The maintainer's units as tasks of this instance (`trigger: maintainer`), each interrupted when its deadline aborts.
 * A unit an API request started already (the maintainer's is attached to it) is that request's to stop: at the
 * deadline the maintainer stops waiting for it and answers `interrupted` (its marker stays), but leaves it running.
 * Waiting on, a tenant's unit would hold the pass, and every other owner, for as long as it ran (review-181 M1).
 */
export function maintainerTasks(tasks: TaskRegistry, runner: Pick<MaintenanceRunner, 'run'>, log: FastifyBaseLogger): MaintainerOptions['runTask'] {
  return async (repo, op, deadline) => {
    let started;
    try {
      started = tasks.start(repo, op, (ctx) => runner.run(repo, op, ctx), { trigger: 'maintainer', log });
    } catch {
      return 'interrupted'; // the registry refuses new tasks once the drain began
    }
    const { task, attached } = started;
    let late: () => void = () => {};
    const deadlinePassed = new Promise<'interrupted'>((resolve) => (late = () => resolve('interrupted')));
    const interrupt = attached ? late : () => task.interrupt(deadline.reason instanceof Error ? deadline.reason : undefined);
    if (deadline.aborted) interrupt();
    else deadline.addEventListener('abort', interrupt, { once: true });
    try {
      return await Promise.race([task.done.then((record) => (record.state === 'running' ? 'failed' : record.state)), deadlinePassed]);
    } finally {
      deadline.removeEventListener('abort', interrupt);
    }
  };
}
