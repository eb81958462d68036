// The tasks of one cw-git instance: operations run now (`POST /api/ops/{op}`) or by the maintainer, followed
// live over SSE. In memory only: a task is known to the instance that runs it, and forgotten past the last
// `keepRecent` ended ones. One run per repository and operation at a time: starting it again while it runs
// attaches to the running task.
import { hostname } from 'node:os';
import type { OperationId, UnitContext, UnitResult } from '../../src/repo-maintenance/operation.ts';
import { TasksDrainingError } from './tasks-draining-error.ts';
import { TooManyTasksError } from './too-many-tasks-error.ts';
import type { TaskLogger } from './task-outcome.ts';
import type { TaskRecord, TaskTrigger } from './task-record.ts';
import { Task } from './task.ts';

export interface TaskRegistryOptions {
  /** This instance's name in every record (host and port): which instance to ask about a task. */
  readonly instance: string;
  /**
   * How many ended tasks are kept, newest first, across repositories (default 200), and per repository (default
   * 10): past the first, the oldest of the repository with the most go. One list for all let any tenant push every
   * other repository's results out with 50 quick syncs of its own (found in review).
   */
  readonly keepRecent?: number;
  readonly keepRecentPerRepo?: number;
  readonly now?: () => Date;
  /** How often an SSE stream that has nothing to say sends a `: keepalive` comment. Default 10 s. */
  readonly keepaliveMs?: number;
  /** Where task starts, ends and internal errors are logged. Default: stderr. */
  readonly log?: TaskLogger;
  /**
   * Tasks asked for over the API running at once: per owner (default 2) and in all (default 4). Each is a git
   * process over a working copy, taking a core and disk the instance's other tenants need.
   */
  readonly apiTasks?: { readonly perOwner: number; readonly total: number };
}

export interface StartOptions {
  readonly trigger: TaskTrigger;
  /** Who asked for it (the principal), whose share of the API's tasks it takes; default the repository's owner. */
  readonly by?: string | undefined;
  /** The logger of this task (a request's, so its lines carry the request id); default the registry's. */
  readonly log?: TaskLogger;
}

export interface TaskList {
  readonly instance: string;
  /** Oldest first. */
  readonly running: TaskRecord[];
  /** Ended tasks, newest first. */
  readonly recent: TaskRecord[];
}

const STDERR_LOG: TaskLogger = {
  info: () => {},
  error: (obj, msg) => console.error(msg, obj),
};

export class TaskRegistry {
  readonly instance: string;
  readonly keepaliveMs: number;
  readonly #keepRecent: number;
  readonly #keepRecentPerRepo: number;
  readonly #now: () => Date;
  readonly #log: TaskLogger;
  /** Running tasks by `repo` and operation. */
  readonly #running = new Map<string, Task>();
  /** Ended tasks, newest first, at most `keepRecent`. */
  #recent: Task[] = [];
  #draining = false;
  readonly #apiTasks: { readonly perOwner: number; readonly total: number };
  /** Whose share each running API task takes. */
  readonly #callers = new Map<Task, string>();

  constructor(options: TaskRegistryOptions) {
    this.instance = options.instance;
    this.keepaliveMs = options.keepaliveMs ?? 10_000;
    this.#apiTasks = options.apiTasks ?? { perOwner: 2, total: 4 };
    this.#keepRecent = Math.max(0, options.keepRecent ?? 200);
    this.#keepRecentPerRepo = Math.max(0, options.keepRecentPerRepo ?? 10);
    this.#now = options.now ?? (() => new Date());
    this.#log = options.log ?? STDERR_LOG;
  }

  /**
   * Runs `run` as a task of `operation` on `repo`, or, while one of the same operation on the same repository
   * runs, answers that one (`attached: true`; `run` is not called). Throws `TasksDrainingError` (503) once
   * `interruptAll` was called.
   */
  start(repo: string, operation: OperationId, run: (ctx: UnitContext) => Promise<UnitResult>, options: StartOptions = { trigger: 'api' }): { task: Task; attached: boolean } {
    if (this.#draining) throw new TasksDrainingError();
    const key = `${repo}\0${operation}`;
    const running = this.#running.get(key);
    if (running) return { task: running, attached: true };
    if (options.trigger === 'api') this.#refuseApiTaskPastBound(repo, options.by);
    const onEnded = (task: Task) => {
      this.#running.delete(key);
      this.#callers.delete(task);
      this.#recent = kept([task, ...this.#recent], this.#keepRecent, this.#keepRecentPerRepo);
    };
    const task = new Task({ repo, operation, instance: this.instance, trigger: options.trigger, now: this.#now, log: options.log ?? this.#log, onEnded }, run);
    this.#running.set(key, task);
    if (options.trigger === 'api') this.#callers.set(task, options.by ?? repo.split('/')[0] ?? '');
    return { task, attached: false };
  }

  /** The caller's share (`by`, else the repository's owner: one person's across their projects) and the instance's. */
  #refuseApiTaskPastBound(repo: string, by: string | undefined): void {
    const caller = by ?? repo.split('/')[0] ?? '';
    const api = [...this.#running.values()].filter((task) => task.trigger === 'api');
    const mine = api.filter((task) => this.#callers.get(task) === caller).length;
    if (mine >= this.#apiTasks.perOwner) {
      throw new TooManyTasksError('owner', `${caller} has ${mine} operations running on this instance, the most one caller may at once; retry once one has ended.`);
    }
    if (api.length >= this.#apiTasks.total) throw new TooManyTasksError('instance', 'This instance runs as many requested operations as it runs at once; retry shortly.');
  }

  /** The task with this id, running or among the recent ones. */
  get(id: string): Task | undefined {
    for (const task of this.#running.values()) if (task.id === id) return task;
    return this.#recent.find((task) => task.id === id);
  }

  /** The running and recent tasks, of `repo` only when given. */
  list(repo?: string): TaskList {
    const of = (tasks: Iterable<Task>) => [...tasks].filter((task) => repo === undefined || task.repo === repo).map((task) => task.record());
    return { instance: this.instance, running: of(this.#running.values()), recent: of(this.#recent) };
  }

  /** The running tasks, oldest first. */
  running(): Task[] {
    return [...this.#running.values()];
  }

  /**
   * The drain's first step: no task starts from now on, every running one is interrupted; resolves once all
   * have ended (units stop at their next step; `sync` finishes its one download).
   */
  async interruptAll(): Promise<void> {
    this.#draining = true;
    const tasks = this.running();
    for (const task of tasks) task.interrupt();
    await Promise.all(tasks.map((task) => task.done));
  }
}

/** The instance name `cw-git serve` gives its registry: the host and the port it listens on. */
export function instanceName(port: number): string {
  return `${hostname()}:${port}`;
}

/** Of the ended tasks (newest first), those kept: at most `perRepo` of each repository, `total` in all, the oldest of the repository with the most going first. */
function kept(recent: readonly Task[], total: number, perRepo: number): Task[] {
  const byRepo = new Map<string, number>();
  const out = recent.filter((task) => {
    const count = (byRepo.get(task.repo) ?? 0) + 1;
    byRepo.set(task.repo, count);
    return count <= perRepo;
  });
  while (out.length > total) {
    const counts = new Map<string, number>();
    for (const task of out) counts.set(task.repo, (counts.get(task.repo) ?? 0) + 1);
    const most = [...counts].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
    out.splice(
      out.findLastIndex((task) => task.repo === most),
      1,
    );
  }
  return out;
}
