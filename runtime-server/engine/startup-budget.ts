import type { Refusal } from './entry-proxy.ts';

/**
 * What one account's cold starts may take of its shard's thread. Compiling and evaluating an app's modules runs on
 * the thread every app of the shard shares, and nothing short of ending the shard interrupts it; a load under the
 * startup allowance is not an offence, yet a project making new code at will (a deploy, a changed variable, a log
 * follower: each a new isolate) stalled its neighbours once per load (a hostile run's victim at p99 818 ms, never
 * quarantined). So each account (the projects one user created, `projectAccount`; the engine's `accountOf`) has a
 * bucket of load CPU time on the replica: `cpuMsPerMinute`, refilled over a
 * minute and as deep. A load is let in while some of the bucket is left after what the loads under way are expected
 * to take, and charged what it took once it is done; one that would wait longer than `waitMs` is refused at once.
 */
export interface StartupBudgetOptions {
  /** CPU time a project's cold starts may take per minute, also the most they may take at once (0: no bound). */
  readonly cpuMsPerMinute: number;
  /** How long a load may wait for its project's bucket before it is refused. */
  readonly waitMs: number;
  readonly now?: () => number;
}

/** A load let in, to be charged what it took; or refused, to be asked again after `retryAfterMs`. */
export type StartupAdmission = { readonly admitted: true; charge(actualMs: number): void } | { readonly admitted: false; readonly retryAfterMs: number };

interface Waiter {
  readonly estimateMs: number;
  readonly admit: (admission: StartupAdmission) => void;
  readonly timer: NodeJS.Timeout;
}

interface Account {
  /** CPU time left in the bucket as of `at` (below zero: what loads took past it). */
  tokens: number;
  at: number;
  /** What the loads under way are expected to take. */
  reserved: number;
  /**
   * The longest load of the project measured here lately (halved by each load since): every load is expected to take
   * at least this, so a build that loads cheaply when checked and dearly on a shard cannot be let in many at a time on
   * the checker's figure.
   */
  largestMs: number;
  readonly queue: Waiter[];
  pump: NodeJS.Timeout | undefined;
  /** When a load was last let in or charged. */
  usedAt: number;
}

/** Accounts of projects idle this long with a full bucket are forgotten. */
const FORGET_AFTER_MS = 10 * 60_000;

export class StartupBudget {
  readonly #o: StartupBudgetOptions;
  readonly #now: () => number;
  readonly #accounts = new Map<string, Account>();
  #sweptAt = 0;

  constructor(options: StartupBudgetOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Lets a load of `project` in, expected to take `estimateMs` of CPU time, once its bucket allows (at most `waitMs`).
   * `platform`: work the platform causes rather than the tenant (code loaded again after a workerd's restart, an app's
   * first load in this process) is let in at once while the project owes less than a bucket more, and charged as any
   * load, so that a restart someone else caused does not cost a tenant its apps, and a tenant cannot pass as one.
   */
  admit(project: string, estimateMs: number, platform = false): Promise<StartupAdmission> {
    if (this.#o.cpuMsPerMinute <= 0) return Promise.resolve({ admitted: true, charge: () => {} });
    this.#sweep();
    const account = this.#account(project);
    this.#refill(account);
    const estimate = Math.max(estimateMs, account.largestMs);
    const room = account.tokens - account.reserved;
    if ((account.queue.length === 0 && room > 0) || (platform && room > -this.#o.cpuMsPerMinute)) return Promise.resolve(this.#reserve(account, estimate));
    // Refused at once only for what was spent: the loads under way may well take less than expected, and soon.
    const debtMs = account.tokens < 0 ? Math.ceil(-account.tokens / this.#ratePerMs()) : 0;
    if (debtMs > this.#o.waitMs) return Promise.resolve({ admitted: false, retryAfterMs: debtMs });
    return new Promise((resolve) => {
      const waiter: Waiter = {
        estimateMs: estimate,
        admit: resolve,
        timer: setTimeout(() => {
          account.queue.splice(account.queue.indexOf(waiter), 1);
          resolve({ admitted: false, retryAfterMs: Math.max(1000, this.#msUntilRoom(account)) });
        }, this.#o.waitMs),
      };
      waiter.timer.unref();
      account.queue.push(waiter);
      this.#schedule(account);
    });
  }

  /** CPU time left in `project`'s bucket now, after what its loads under way are expected to take (for tests and status). */
  available(project: string): number {
    const account = this.#accounts.get(project);
    if (!account) return this.#o.cpuMsPerMinute;
    this.#refill(account);
    return account.tokens - account.reserved;
  }

  #reserve(account: Account, estimateMs: number): StartupAdmission {
    account.reserved += estimateMs;
    account.usedAt = this.#now();
    let charged = false;
    return {
      admitted: true,
      charge: (actualMs: number) => {
        if (charged) return;
        charged = true;
        this.#refill(account);
        account.reserved -= estimateMs;
        account.tokens -= actualMs;
        // Halved by each load since: one large load does not have every small one after it expected to be as large.
        account.largestMs = Math.max(actualMs, account.largestMs / 2);
        account.usedAt = this.#now();
        this.#letIn(account);
      },
    };
  }

  /** Lets in the waiters the bucket has room for, in order, and wakes again when the next one will fit. */
  #letIn(account: Account): void {
    clearTimeout(account.pump);
    account.pump = undefined;
    this.#refill(account);
    while (account.queue.length > 0 && account.tokens - account.reserved > 0) {
      const waiter = account.queue.shift()!;
      clearTimeout(waiter.timer);
      waiter.admit(this.#reserve(account, waiter.estimateMs));
    }
    this.#schedule(account);
  }

  #schedule(account: Account): void {
    // With what is expected of the loads under way past a full bucket, only their charges make room: no timer.
    if (account.queue.length === 0 || account.pump || account.reserved >= this.#o.cpuMsPerMinute) return;
    account.pump = setTimeout(
      () => {
        account.pump = undefined;
        this.#letIn(account);
      },
      this.#msUntilRoom(account) + 1,
    );
    account.pump.unref();
  }

  /** How long until the bucket has room after what the loads under way are expected to take. */
  #msUntilRoom(account: Account): number {
    const short = account.reserved - account.tokens;
    return short < 0 ? 0 : Math.ceil(short / this.#ratePerMs());
  }

  #ratePerMs(): number {
    return this.#o.cpuMsPerMinute / 60_000;
  }

  #refill(account: Account): void {
    const now = this.#now();
    account.tokens = Math.min(this.#o.cpuMsPerMinute, account.tokens + (now - account.at) * this.#ratePerMs());
    account.at = now;
  }

  #account(project: string): Account {
    let account = this.#accounts.get(project);
    if (!account) {
      account = { tokens: this.#o.cpuMsPerMinute, at: this.#now(), reserved: 0, largestMs: 0, queue: [], pump: undefined, usedAt: this.#now() };
      this.#accounts.set(project, account);
    }
    return account;
  }

  /** Forgets, once a minute, the accounts with nothing under way, a full bucket and no load for a while. */
  #sweep(): void {
    const now = this.#now();
    if (now - this.#sweptAt < 60_000) return;
    this.#sweptAt = now;
    for (const [project, account] of this.#accounts) {
      this.#refill(account);
      const idle = account.reserved === 0 && account.queue.length === 0 && account.tokens >= this.#o.cpuMsPerMinute;
      if (idle && now - account.usedAt >= FORGET_AFTER_MS) this.#accounts.delete(project);
    }
  }
}

/** The answer to a request whose app's load its project's budget refused: a 503 saying when to retry. */
export function startupRefusal(retryAfterMs: number, cpuMsPerMinute: number): Refusal {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return {
    status: 503,
    title: 'Service Unavailable',
    detail:
      `The app's project (with the other projects of the user who created it) has used the CPU time its apps may take to start on this runtime replica (${cpuMsPerMinute} ms a minute; ` +
      `a deploy, a changed variable or a log follower starts an app anew). Retry in ${seconds} s.`,
    retryAfter: String(seconds),
    reason: 'StartupBudgetExceeded',
  };
}
