/** The longest an order waiting on the platform's own side goes without a look. */
export const MAX_SELF_WAIT_MS = 5 * 60_000;

/** Orders remembered at most; past it the longest waiting is forgotten (it starts again from the shortest wait). */
const MAX_ORDERS = 10_000;

/**
 * How long each order has been waiting on the platform itself (an HTTP-01 answer not served yet, DNS-01 records not
 * in the zone yet), so it is looked at less often the longer that lasts: after a quarter of the time waited, from
 * the shortest wait up to {@link MAX_SELF_WAIT_MS}. A wait that never ends (a TXT record losing to an older one of the
 * tenant's) then asks the CA about its order a few thousand times before the order expires, not once a second.
 * In memory: a restart only starts each wait again from the shortest.
 */
export class SelfWaits {
  readonly #since = new Map<string, number>();
  readonly #shortestMs: number;

  constructor(shortestMs: number) {
    this.#shortestMs = shortestMs;
  }

  /** `order` waits on us at `nowMs`: when to look again. */
  wait(order: string, nowMs: number): number {
    let since = this.#since.get(order);
    if (since === undefined) {
      if (this.#since.size >= MAX_ORDERS) this.#since.delete(this.#since.keys().next().value!);
      this.#since.set(order, (since = nowMs));
    }
    return Math.min(MAX_SELF_WAIT_MS, Math.max(this.#shortestMs, Math.floor((nowMs - since) / 4)));
  }

  /** `order` no longer waits on us (it moved on, failed or ended). */
  done(order: string): void {
    this.#since.delete(order);
  }

  get size(): number {
    return this.#since.size;
  }
}
