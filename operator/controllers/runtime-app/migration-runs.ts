// Migration runs in the background of the RuntimeApp controller. A run holds a database connection for as long as
// its files take (up to 200 of them, each up to the engine's request time), so a reconcile only starts one and
// records its outcome: a tenant's slow migrations then hold no reconcile worker, and so no other tenant's deploys.
import { Semaphore } from '../../../src/collections/semaphore.ts';

/** What a run came to: its value, or what it threw. */
export type Settled<T> = { readonly kind: 'done'; readonly value: T } | { readonly kind: 'failed'; readonly error: unknown };

export interface MigrationRunsOptions {
  /** Runs under way at once across every project (each holds a database connection); the others wait, holding nothing. */
  readonly concurrency: number;
  /** Called with the app's key once its run settled: the controller looks at the app again and records the outcome. */
  readonly onSettled: (appKey: string) => void;
  /** A settled run no reconcile took within this long is forgotten (its app deleted, say); default 10 minutes. */
  readonly keepSettledMs?: number;
  readonly now?: () => number;
}

interface Run<T> {
  settled?: Settled<T>;
  settledAt?: number;
}

/**
 * Runs keyed by what they apply (the app, its build, the files' checksum, the target database), at most
 * `concurrency` at once and one per project at a time, in the order they were asked for: a project with many apps
 * waiting on slow migrations holds up its own runs only, never another project's beyond one turn of the pool.
 */
export class MigrationRuns<T> {
  readonly #options: MigrationRunsOptions;
  readonly #pool: Semaphore;
  readonly #runs = new Map<string, Run<T>>();
  /** Each project's last run asked for: the next one starts after it. */
  readonly #projectTails = new Map<string, Promise<void>>();

  constructor(options: MigrationRunsOptions) {
    this.#options = options;
    this.#pool = new Semaphore(options.concurrency);
  }

  /** Runs asked for and not yet settled (waiting or under way). */
  get pending(): number {
    let count = 0;
    for (const run of this.#runs.values()) if (!run.settled) count++;
    return count;
  }

  /**
   * The run of `runKey`: its outcome once settled (handed out once: a later call starts it again), `running` while it
   * waits or runs, or undefined when none was asked for; then `start` asks for it.
   */
  take(runKey: string): Settled<T> | 'running' | undefined {
    this.#forgetOld();
    const run = this.#runs.get(runKey);
    if (!run) return undefined;
    if (!run.settled) return 'running';
    this.#runs.delete(runKey);
    return run.settled;
  }

  /** Asks for `apply` to run as `runKey` in `project`'s turn; `appKey` is told when it settles. A run asked for already is left as it is. */
  start(runKey: string, project: string, appKey: string, apply: () => Promise<T>): void {
    if (this.#runs.has(runKey)) return;
    const run: Run<T> = {};
    this.#runs.set(runKey, run);
    const previous = this.#projectTails.get(project) ?? Promise.resolve();
    const tail = previous.then(async () => {
      const release = await this.#pool.acquire();
      try {
        run.settled = { kind: 'done', value: await apply() };
      } catch (error) {
        run.settled = { kind: 'failed', error };
      } finally {
        release();
        run.settledAt = this.#now();
      }
      this.#options.onSettled(appKey);
    });
    this.#projectTails.set(project, tail);
    void tail
      .finally(() => {
        if (this.#projectTails.get(project) === tail) this.#projectTails.delete(project);
      })
      .catch(() => {});
  }

  #forgetOld(): void {
    const before = this.#now() - (this.#options.keepSettledMs ?? 10 * 60_000);
    for (const [key, run] of this.#runs) if (run.settledAt !== undefined && run.settledAt < before) this.#runs.delete(key);
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }
}
