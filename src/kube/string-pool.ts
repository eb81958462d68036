/**
 * One copy of each short string the caches hold. JSON gives every string of every object a copy of its own, so a
 * cache of thousands of objects holds thousands of copies of the same namespace, kind, condition type, build id and
 * second-rounded timestamp (a third of cw-operator's heap per app at 3,000 apps). Generational, so it stays bounded
 * whatever passes through it: a string not seen for two generations is dropped from the pool (the objects keep their
 * copy), and a string asked for again is carried into the current generation, so what keeps recurring stays shared.
 */
export class StringPool {
  readonly #generationSize: number;
  #current = new Map<string, string>();
  #previous = new Map<string, string>();

  constructor(generationSize = 1 << 14) {
    this.#generationSize = generationSize;
  }

  /** Strings the pool holds: at most two generations. */
  get size(): number {
    return this.#current.size + this.#previous.size;
  }

  /** Whether the pool holds a copy of `value`. */
  has(value: string): boolean {
    return this.#current.has(value) || this.#previous.has(value);
  }

  /** The pool's copy of `value`, which becomes it if there is none. */
  intern(value: string): string {
    const current = this.#current.get(value);
    if (current !== undefined) return current;
    const shared = this.#previous.get(value) ?? value;
    if (this.#current.size >= this.#generationSize) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(shared, shared);
    return shared;
  }
}

/** Longer strings (messages, environment values, certificates) seldom repeat, and cost a lookup to compare. */
const MAX_INTERNED_LENGTH = 96;

/** The pool every informer of the process shares: an object's strings repeat across kinds (names, build ids). */
export const cachePool = new StringPool();

/** Unique to one version of one object: pooling them would only turn the generations over. */
const NOT_INTERNED = new Set(['uid', 'resourceVersion']);

/**
 * Replaces, in place, every short string inside `value` by the pool's copy; answers `value`. Only plain objects and
 * arrays (what JSON gives) are walked, frozen ones passed over: a Buffer or a class instance is left as it is.
 */
export function internStrings<T>(value: T, pool: StringPool = cachePool): T {
  if (Array.isArray(value)) {
    if (Object.isFrozen(value)) return value;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'string') {
        if (item.length <= MAX_INTERNED_LENGTH) value[i] = pool.intern(item);
      } else if (item !== null && typeof item === 'object') internStrings(item, pool);
    }
  } else if (isPlainObject(value) && !Object.isFrozen(value)) {
    const record: Record<string, unknown> = value;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (typeof item === 'string') {
        if (item.length <= MAX_INTERNED_LENGTH && !NOT_INTERNED.has(key)) record[key] = pool.intern(item);
      } else if (item !== null && typeof item === 'object') internStrings(item, pool);
    }
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
