/**
 * Keys in arrival order, each at most once, with deletion anywhere: the lanes of a work queue. A `Set` keeps
 * arrival order too, but V8 leaves a deleted entry in place until the table shrinks, so taking the first key of
 * a large Set again and again skips every key taken before it: a queue of 100,000 keys walked from the front
 * cost seconds of CPU (quadratic). Here a key's place is an array slot tagged with its turn; a deleted or moved
 * key leaves a stale slot that is skipped once, and the array is compacted as its front empties.
 */
export class FifoSet<K> {
  #slots: Array<{ readonly key: K; readonly turn: number }> = [];
  #head = 0;
  /** The keys present, with the turn of their live slot. */
  readonly #turns = new Map<K, number>();
  #nextTurn = 0;

  get size(): number {
    return this.#turns.size;
  }

  has(key: K): boolean {
    return this.#turns.has(key);
  }

  /** Appends `key` unless it is present (it keeps its place). */
  add(key: K): void {
    if (this.#turns.has(key)) return;
    const turn = this.#nextTurn++;
    this.#turns.set(key, turn);
    this.#slots.push({ key, turn });
  }

  delete(key: K): boolean {
    return this.#turns.delete(key);
  }

  /** Removes and answers the key that has waited longest, if any. */
  shift(): K | undefined {
    while (this.#head < this.#slots.length) {
      const { key, turn } = this.#slots[this.#head++]!;
      if (this.#turns.get(key) !== turn) continue;
      this.#turns.delete(key);
      this.#compact();
      return key;
    }
    this.#compact();
    return undefined;
  }

  clear(): void {
    this.#slots = [];
    this.#head = 0;
    this.#turns.clear();
  }

  #compact(): void {
    if (this.#head === this.#slots.length) {
      this.#slots = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#slots.length) {
      this.#slots = this.#slots.slice(this.#head);
      this.#head = 0;
    }
  }
}
