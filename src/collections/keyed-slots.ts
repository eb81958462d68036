/** Why a slot was not given: the key holds its share, or every slot is taken. */
export type SlotRefusal = { readonly refused: 'key'; readonly held: number } | { readonly refused: 'total'; readonly held: number };

/** A slot taken, or why not. */
export type SlotResult = { readonly release: () => void } | SlotRefusal;

/**
 * Counts things held open at once (uploads being read, log streams followed): at most `total` in all and
 * `perKey` per key (a user, an address), so one caller cannot take every one. Each taken slot is released
 * once, by the function `take` answers.
 */
export class KeyedSlots {
  readonly #total: number;
  readonly #perKey: number;
  readonly #byKey = new Map<string, number>();
  #held = 0;

  constructor(limits: { readonly total: number; readonly perKey: number }) {
    this.#total = limits.total;
    this.#perKey = limits.perKey;
  }

  /** Slots held now, in all. */
  get held(): number {
    return this.#held;
  }

  /** Takes `weight` slots at once (bytes of a body being read, say, where a slot is a byte), or none. */
  take(key: string, weight = 1): SlotResult {
    const mine = this.#byKey.get(key) ?? 0;
    if (mine + weight > this.#perKey) return { refused: 'key', held: mine };
    if (this.#held + weight > this.#total) return { refused: 'total', held: this.#held };
    this.#held += weight;
    this.#byKey.set(key, mine + weight);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#held -= weight;
        const left = (this.#byKey.get(key) ?? weight) - weight;
        if (left <= 0) this.#byKey.delete(key);
        else this.#byKey.set(key, left);
      },
    };
  }
}
