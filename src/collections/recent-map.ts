/**
 * A map that keeps the entries used most recently, at most about `capacity` of them, in two generations:
 * new entries go into the recent one; when it holds half the capacity, it becomes the older one and the
 * previous older one is dropped. An entry read from the older generation moves back to the recent one, so
 * an entry in steady use is never dropped.
 *
 * Unlike a strict LRU map (a delete and a re-insert on every hit, which rehashes), a hit on a recent entry
 * costs one lookup: the per-request caches of the API use it (measured: bench/README.md).
 */
export class RecentMap<V> {
  readonly #generationSize: number;
  #recent = new Map<string, V>();
  #older = new Map<string, V>();

  constructor(capacity: number) {
    this.#generationSize = Math.max(1, Math.floor(capacity / 2));
  }

  get(key: string): V | undefined {
    const recent = this.#recent.get(key);
    if (recent !== undefined) return recent;
    const older = this.#older.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: string, value: V): void {
    if (this.#recent.size >= this.#generationSize && !this.#recent.has(key)) {
      this.#older = this.#recent;
      this.#recent = new Map();
    }
    this.#recent.set(key, value);
  }
}
