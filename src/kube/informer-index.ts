import { objectKey, type KubeObject } from './types.ts';

/** What an index follows: an informer, or the controller runtime's source. */
export interface IndexedSource<T extends KubeObject> {
  onChange(handler: (obj: T) => void): unknown;
  get(key: string): T | undefined;
}

/**
 * Objects of a cache by a value derived from each (client-go's `Indexer`): the keys (`namespace/name`) of those
 * `valuesOf` gives a value, kept up to date by the cache's events, so a lookup by value across every namespace
 * is a map read where a walk over the whole cache grows with the installation. One key as a string, the rare
 * several as an array: an index of 100,000 objects costs a few bytes a value.
 */
export class InformerIndex<T extends KubeObject> {
  readonly #source: IndexedSource<T>;
  readonly #valuesOf: (obj: T) => readonly string[];
  readonly #byValue = new Map<string, string | string[]>();
  /** Key → the values it was indexed under last, to take them back when it changes. */
  readonly #valuesByKey = new Map<string, readonly string[]>();

  /**
   * Follows `source` from now on: subscribe before it lists, or pass what it holds already as `current` (both in
   * one turn, so no change falls between them).
   */
  constructor(source: IndexedSource<T>, valuesOf: (obj: T) => readonly string[], current: readonly T[] = []) {
    this.#source = source;
    this.#valuesOf = valuesOf;
    for (const obj of current) this.#update(objectKey(obj));
    source.onChange((obj) => this.#update(objectKey(obj)));
  }

  /** The keys of the objects indexed under `value`. */
  keys(value: string): string[] {
    const keys = this.#byValue.get(value);
    return keys === undefined ? [] : typeof keys === 'string' ? [keys] : keys;
  }

  /** Every value some object is indexed under (a walk over the values, not over every object of the cache). */
  values(): IterableIterator<string> {
    return this.#byValue.keys();
  }

  /** The objects indexed under `value`, as the cache holds them now. */
  objects(value: string): T[] {
    return this.keys(value)
      .map((key) => this.#source.get(key))
      .filter((obj): obj is T => obj !== undefined);
  }

  #update(key: string): void {
    for (const value of this.#valuesByKey.get(key) ?? [])
      this.#set(
        value,
        this.keys(value).filter((other) => other !== key),
      );
    const obj = this.#source.get(key);
    const values = obj === undefined ? [] : [...new Set(this.#valuesOf(obj))];
    if (values.length === 0) {
      this.#valuesByKey.delete(key);
      return;
    }
    this.#valuesByKey.set(key, values);
    for (const value of values) this.#set(value, [...this.keys(value), key]);
  }

  #set(value: string, keys: readonly string[]): void {
    if (keys.length === 0) this.#byValue.delete(value);
    else this.#byValue.set(value, keys.length === 1 ? (keys[0] ?? '') : [...keys]);
  }
}

/** Indexes kept with their cache, by name (client-go's `AddIndexers`): every reader of one cache shares each. */
const shared = new WeakMap<object, Map<string, InformerIndex<KubeObject>>>();

/**
 * The index `name` of `cache`, built on first use from what the cache holds and kept by its events from then on,
 * one for every caller that asks for it by that name (so for the same `valuesOf`).
 */
export function sharedIndex<T extends KubeObject>(cache: IndexedSource<T> & { list(): readonly T[] }, name: string, valuesOf: (obj: T) => readonly string[]): InformerIndex<T> {
  let byName = shared.get(cache);
  if (!byName) shared.set(cache, (byName = new Map()));
  let index = byName.get(name) as InformerIndex<T> | undefined;
  if (!index) {
    index = new InformerIndex(cache, valuesOf, cache.list());
    byName.set(name, index as unknown as InformerIndex<KubeObject>);
  }
  return index;
}
