// Turns under a cap: when only some of the waiting may start in a round, the next round begins with the first one
// left over, so the same few (the first in the list) are not always served first and the rest never.

/** Hands out turns round after round, each from where the previous one stopped. */
export class Turns {
  #start = 0;

  /** Up to `free` of `items` that `waiting` accepts, in order from the first one the previous call left over. */
  take<T>(items: readonly T[], free: number, waiting: (item: T) => boolean): T[] {
    const taken: T[] = [];
    const start = items.length === 0 ? 0 : this.#start % items.length;
    for (let i = 0; i < items.length; i++) {
      const index = (start + i) % items.length;
      const item = items[index] as T;
      if (!waiting(item)) continue;
      if (taken.length >= free) {
        this.#start = index;
        return taken;
      }
      taken.push(item);
    }
    return taken;
  }
}
