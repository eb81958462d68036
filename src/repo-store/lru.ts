/**
 * A small least-recently-used map, bounded by the weight of what it holds: 1 an entry unless the caller weighs
 * them (bytes, for decoded objects whose size a tenant chooses), so the bound is a count or a size. With
 * `maxEntryWeight`, an entry heavier than that is not kept at all: a tenant's few huge objects cannot push
 * everyone else's out (theirs are read again each time instead).
 */
/** The share of a cache that one entry whose size a tenant chooses may take (decoded heads and log entries). */
export const TENANT_ENTRY_SHARE = 1 / 8;

export class Lru<V> {
  readonly #map = new Map<string, { readonly value: V; readonly weight: number }>();
  readonly #capacity: number;
  readonly #maxEntryWeight: number;
  #weight = 0;

  constructor(capacity: number, options: { readonly maxEntryWeight?: number } = {}) {
    this.#capacity = capacity;
    this.#maxEntryWeight = options.maxEntryWeight ?? Number.POSITIVE_INFINITY;
  }

  /** What the entries weigh together. */
  get weight(): number {
    return this.#weight;
  }

  get(key: string): V | undefined {
    const held = this.#map.get(key);
    if (held !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, held);
    }
    return held?.value;
  }

  /** Keeps `value` (unless it weighs more than an entry may), letting the least recently used go past the capacity (never the one just kept). */
  set(key: string, value: V, weight = 1): void {
    this.delete(key);
    if (weight > this.#maxEntryWeight) return;
    this.#map.set(key, { value, weight });
    this.#weight += weight;
    for (const [oldest, held] of this.#map) {
      if (this.#weight <= this.#capacity || oldest === key) break;
      this.#map.delete(oldest);
      this.#weight -= held.weight;
    }
  }

  delete(key: string): void {
    const held = this.#map.get(key);
    if (held === undefined) return;
    this.#map.delete(key);
    this.#weight -= held.weight;
  }
}
