// Test helper: the base of the wrappers that watch or disturb a store (counting, fault injection, gates).
import type { GetOptions, ListOptions, ObjectStore, PrefixListOptions, PutBody, PutOptions } from '../object-store.ts';

/** Forwards every call to `inner`; a subclass overrides the calls it intercepts and calls `super`. */
export class ForwardingObjectStore implements ObjectStore {
  readonly inner: ObjectStore;

  constructor(inner: ObjectStore) {
    this.inner = inner;
  }

  get(key: string, options?: GetOptions) {
    return this.inner.get(key, options);
  }

  getStream(key: string) {
    return this.inner.getStream(key);
  }

  head(key: string) {
    return this.inner.head(key);
  }

  put(key: string, body: PutBody, options?: PutOptions) {
    return this.inner.put(key, body, options);
  }

  delete(key: string) {
    return this.inner.delete(key);
  }

  list(prefix: string, options?: ListOptions) {
    return this.inner.list(prefix, options);
  }

  listPrefixes(prefix: string, options?: PrefixListOptions) {
    return this.inner.listPrefixes(prefix, options);
  }
}
