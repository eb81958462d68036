// Maintenance in a cw-git instance: the runner behind `POST /api/ops/{op}` (every instance), the maintainer's
// schedule (instances with the `maintain` role), and the first phase of the drain: no new unit starts, the
// running ones are interrupted, serving goes on (spec "Server drain on SIGTERM").
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { ObjectStore } from '../src/object-store/object-store.ts';
import { RepoMaintenance, type MaintenanceOp } from '../src/repo-maintenance/index.ts';
import type { RepoStore } from '../src/repo-store/repo-store.ts';
import type { GitServiceConfig } from './config/index.ts';
import { Maintainer, missingObjectsGauge, type TaskOutcome } from './maintainer.ts';
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
      const runTask = async (repo: string, op: MaintenanceOp): Promise<TaskOutcome> => {
        try {
          const { task } = tasks.start(repo, op, (ctx) => runner.run(repo, op, ctx), { trigger: 'maintainer', log });
          const record = await task.done;
          return record.state === 'running' ? 'failed' : record.state;
        } catch {
          return 'interrupted'; // the registry refuses new tasks once the drain began
        }
      };
      maintainer = new Maintainer({
        repos,
        store: objects,
        context: { workDir: join(config.cache.dir, 'maintain'), now: () => new Date(), graceMs: config.maintenance.gracePeriodMs },
        host: tasks.instance,
        intervalMs: config.maintenance.intervalMs,
        registry,
        log,
        runTask,
      });
      maintainer.start();
    },
    async drain(boundMs = MAINTENANCE_DRAIN_MS) {
      maintainer?.stop();
      await Promise.race([Promise.all([tasks.interruptAll(), maintainer?.idle()]), sleep(boundMs)]);
    },
  };
}
