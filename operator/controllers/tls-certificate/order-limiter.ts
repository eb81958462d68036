/**
 * Per-account rate discipline: new orders drawn from a token bucket, so thousands of host names attached at
 * once become a steady stream the CA accepts (Let's Encrypt allows 300 new orders per account per 3 hours)
 * instead of a burst it refuses. Shared by the controller's workers; renewals and first orders alike.
 */
export class OrderLimiter {
  readonly #perHour: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;

  constructor(options: { readonly perHour: number; readonly burst: number; readonly now?: () => number }) {
    this.#perHour = options.perHour;
    this.#burst = options.burst;
    this.#now = options.now ?? Date.now;
    this.#tokens = options.burst;
    this.#at = this.#now();
  }

  /** Takes a token and answers 0, or answers how many milliseconds until one is free (taking none). */
  take(): number {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#at) * this.#perHour) / 3_600_000);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) * 3_600_000) / this.#perHour);
  }

  /** Returns a token taken for an order that was not placed. */
  giveBack(): void {
    this.#tokens = Math.min(this.#burst, this.#tokens + 1);
  }
}

/**
 * The account's budget shared fairly: each project draws from a bucket of its own before the account's, so one
 * project applying thousands of TlsCertificates waits on its own bucket while the others' orders go on.
 */
export class ProjectOrderLimiter {
  readonly #account: OrderLimiter;
  readonly #projects = new Map<string, OrderLimiter>();
  readonly #perProject: { readonly perHour: number; readonly burst: number; readonly now?: () => number };

  constructor(options: { readonly account: OrderLimiter; readonly perProjectPerHour: number; readonly perProjectBurst: number; readonly now?: () => number }) {
    this.#account = options.account;
    this.#perProject = { perHour: options.perProjectPerHour, burst: options.perProjectBurst, ...(options.now ? { now: options.now } : {}) };
  }

  /** 0 when `project` may order now (a token taken from both buckets), else milliseconds to wait. */
  take(project: string): number {
    let own = this.#projects.get(project);
    if (!own) this.#projects.set(project, (own = new OrderLimiter(this.#perProject)));
    const wait = own.take();
    if (wait > 0) return wait;
    const shared = this.#account.take();
    // The project's token goes back when the account has none: it did not order.
    if (shared > 0) own.giveBack();
    return shared;
  }
}
