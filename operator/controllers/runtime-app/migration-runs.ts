// Migration runs in the background of the RuntimeApp controller. A run holds a database connection for as long as
// its files take (up to 200 of them, each up to the engine's request time), so a reconcile only starts one and
// records its outcome: a tenant's slow migrations then hold no reconcile worker, and so no other tenant's deploys.
import { setTimeout as delay } from 'node:timers/promises';
import { Semaphore } from '../../../src/collections/semaphore.ts';

/** What a run came to: its value, or what it threw. */
export type Settled<T> = { readonly kind: 'done'; readonly value: T } | { readonly kind: 'failed'; readonly error: unknown };

export interface MigrationRunsOptions {
  /** Runs under way at once across every project (each holds a database connection); the others wait, holding nothing. */
  readonly concurrency: number;
  /** Called with the app's key once its run settled: the controller looks at the app again and records the outcome. */
  readonly onSettled: (appKey: string) => void;
  /** A failed run is answered as it is for this long before a new one may start (default 5 s). */
  readonly retryFailedAfterMs?: number;
  /** A settled run nobody recorded within this long is forgotten (its app deleted, say); default 10 minutes. */
  readonly keepSettledMs?: number;
  /** How long `stop` waits for runs applying files (default 20 s). */
  readonly stopWaitMs?: number;
  readonly now?: () => number;
}

/** A run asked for: which app it is for, and once it settled, how. */
interface Run<T> {
  readonly app: string;
  settled?: Settled<T>;
  settledAt?: number;
}

/** What a reconcile sees of a run: its outcome (and for a failure, how long until it may be tried again). */
export type RunState<T> = { readonly kind: 'running' } | (Settled<T> & { readonly retryInMs?: number });

/**
 * Runs keyed by what they apply (the app, its build, the files' checksum, the target database), at most
 * `concurrency` at once and one per account at a time (the user who created the project, `projectAccount`), in
 * the order they were asked for: an account with many apps, or many projects, waiting on slow migrations holds up
 * its own runs only. A run whose turn comes checks first that it is still
 * wanted (the app not rolled back, redeployed or deleted meanwhile), and applies nothing otherwise.
 */
export class MigrationRuns<T> {
  readonly #options: MigrationRunsOptions;
  readonly #pool: Semaphore;
  readonly #runs = new Map<string, Run<T>>();
  /** Each account's last run asked for: the next one starts after it. */
  readonly #accountTails = new Map<string, Promise<void>>();
  /** Runs applying files now. */
  readonly #applying = new Set<Promise<unknown>>();
  #stopped = false;

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
   * The run of `runKey`, or undefined when none is (then `start` asks for it). A failed run is answered until it may
   * be tried again, then forgotten; an outcome is kept until `forget` (its status written) or until it is old.
   */
  state(runKey: string): RunState<T> | undefined {
    this.#forgetOld();
    const run = this.#runs.get(runKey);
    if (!run) return undefined;
    if (!run.settled) return { kind: 'running' };
    if (run.settled.kind === 'failed') {
      const retryInMs = (run.settledAt ?? 0) + (this.#options.retryFailedAfterMs ?? 5_000) - this.#now();
      if (retryInMs <= 0) {
        this.#runs.delete(runKey);
        return undefined;
      }
      return { ...run.settled, retryInMs };
    }
    return run.settled;
  }

  /** The outcome of `runKey` is recorded: it is not needed any more. */
  forget(runKey: string): void {
    if (this.#runs.get(runKey)?.settled) this.#runs.delete(runKey);
  }

  /** Every run of `app` but `keep` is let go: one waiting for its turn applies nothing, an outcome is dropped. */
  supersede(app: string, keep?: string): void {
    for (const [key, run] of this.#runs) if (run.app === app && key !== keep) this.#runs.delete(key);
  }

  /**
   * Asks for `apply` to run as `runKey` in `account`'s turn, unless `stillWanted()` says no when the turn comes;
   * `app` is told (`onSettled`) when it settles, and so does the promise answered (it never rejects). A run asked
   * for already is left as it is.
   */
  start(runKey: string, account: string, app: string, apply: () => Promise<T>, stillWanted: () => boolean): Promise<void> {
    if (this.#runs.has(runKey) || this.#stopped) return Promise.resolve();
    const run: Run<T> = { app };
    this.#runs.set(runKey, run);
    const previous = this.#accountTails.get(account) ?? Promise.resolve();
    const tail = previous.then(async () => {
      const release = await this.#pool.acquire();
      try {
        // Superseded (or the operator stopping) while it waited: nothing is applied.
        if (this.#stopped || this.#runs.get(runKey) !== run || !stillWanted()) {
          if (this.#runs.get(runKey) === run) this.#runs.delete(runKey);
          return;
        }
        const applying = apply();
        this.#applying.add(applying);
        try {
          run.settled = { kind: 'done', value: await applying };
        } catch (error) {
          run.settled = { kind: 'failed', error };
        } finally {
          this.#applying.delete(applying);
          run.settledAt = this.#now();
        }
      } finally {
        release();
      }
      this.#options.onSettled(app);
    });
    this.#accountTails.set(account, tail);
    return tail
      .finally(() => {
        if (this.#accountTails.get(account) === tail) this.#accountTails.delete(account);
      })
      .catch(() => {});
  }

  /**
   * No run starts any more; resolves once those applying files have settled, or after `stopWaitMs`: a file cut
   * short by the process's exit is rolled back by the database, and the next operator applies it again.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.race([Promise.allSettled(this.#applying), delay(this.#options.stopWaitMs ?? 20_000, undefined, { ref: false })]);
  }

  #forgetOld(): void {
    const before = this.#now() - (this.#options.keepSettledMs ?? 10 * 60_000);
    for (const [key, run] of this.#runs) if (run.settledAt !== undefined && run.settledAt < before) this.#runs.delete(key);
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }
}
