// Turns under a cap: when only some of the waiting may start in a round, the next round begins with the first one
// left over, so the same few (the first in the list) are not always served first and the rest never.

/** Hands out turns round after round, each from where the previous one stopped. */
export class Turns {
  #start = 0;

  /** Up to `free` of `items` that `waiting` accepts, in order from the first one the previous call left over. */
  take<T>(items: readonly T[], free: number, waiting: (item: T) => boolean): T[] {
    return this.pick(items, waiting, (offered) => offered.slice(0, Math.max(0, free)));
  }

  /**
   * What `choose` picks of the `items` that `waiting` accepts, offered in order from the first one the previous call
   * left over; the next call begins with the first one offered and not picked.
   */
  pick<T>(items: readonly T[], waiting: (item: T) => boolean, choose: (offered: readonly T[]) => readonly T[]): T[] {
    const start = items.length === 0 ? 0 : this.#start % items.length;
    const offered: { item: T; index: number }[] = [];
    for (let i = 0; i < items.length; i++) {
      const index = (start + i) % items.length;
      const item = items[index] as T;
      if (waiting(item)) offered.push({ item, index });
    }
    const picked = new Set(choose(offered.map((o) => o.item)));
    const left = offered.find((o) => !picked.has(o.item));
    if (left) this.#start = left.index;
    return offered.filter((o) => picked.has(o.item)).map((o) => o.item);
  }
}
