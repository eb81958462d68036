import { objectKey, type KubeObject } from '../kube/types.ts';

/**
 * Where a controller's events come from: an informer in production (`src/kube`'s `Informer` has this shape),
 * an in-memory source in tests. Level-based on purpose: a handler learns only *which* object changed.
 */
export interface Source<T extends KubeObject = KubeObject> {
  /** Calls `handler` with the object on every add, update and delete. */
  onChange(handler: (obj: T) => void): void;
  /** Every cached object (for periodic resync), or those of one namespace (a lookup, not a walk of every object). */
  list(namespace?: string): readonly T[];
  /** The cached object of a `namespace/name` key (after a delete, none). */
  get(key: string): T | undefined;
  hasSynced(): boolean;
  waitForSync(signal?: AbortSignal): Promise<void>;
}

/** An in-memory {@link Source} for tests and for objects fed by something other than a watch. */
export class MemorySource<T extends KubeObject = KubeObject> implements Source<T> {
  readonly #objects = new Map<string, T>();
  readonly #handlers: Array<(obj: T) => void> = [];
  #synced: boolean;
  #syncWaiters: Array<() => void> = [];

  constructor(options: { synced?: boolean } = {}) {
    this.#synced = options.synced ?? true;
  }

  onChange(handler: (obj: T) => void): void {
    this.#handlers.push(handler);
  }

  list(namespace?: string): readonly T[] {
    const all = [...this.#objects.values()];
    // As client-node's cache: no namespace (or an empty one) lists every object.
    return namespace ? all.filter((o) => o.metadata?.namespace === namespace) : all;
  }

  get(key: string): T | undefined {
    return this.#objects.get(key);
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  waitForSync(): Promise<void> {
    return this.#synced ? Promise.resolve() : new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  markSynced(): void {
    this.#synced = true;
    for (const wake of this.#syncWaiters.splice(0)) wake();
  }

  /** Adds or updates `obj` and notifies handlers. */
  upsert(obj: T): void {
    this.#objects.set(objectKey(obj), obj);
    this.#emit(obj);
  }

  delete(obj: T): void {
    this.#objects.delete(objectKey(obj));
    this.#emit(obj);
  }

  #emit(obj: T): void {
    for (const handler of this.#handlers) handler(obj);
  }
}
