// Test helper: an ObjectStore wrapper that counts the calls made through it, by operation and key.
import type { GetOptions, ListOptions, ObjectStore, PutBody, PutOptions } from '../object-store.ts';

export type CountedOp = 'get' | 'head' | 'put' | 'delete' | 'list';

export interface CountedCall {
  op: CountedOp;
  key: string;
}

/** Forwards every call to `inner` and records it; `reset()` starts a new measurement. */
export class CountingObjectStore implements ObjectStore {
  readonly calls: CountedCall[] = [];
  readonly #inner: ObjectStore;

  constructor(inner: ObjectStore) {
    this.#inner = inner;
  }

  get total(): number {
    return this.calls.length;
  }

  count(op: CountedOp): number {
    return this.calls.filter((c) => c.op === op).length;
  }

  reset(): void {
    this.calls.length = 0;
  }

  get(key: string, options?: GetOptions) {
    this.calls.push({ op: 'get', key });
    return this.#inner.get(key, options);
  }

  head(key: string) {
    this.calls.push({ op: 'head', key });
    return this.#inner.head(key);
  }

  put(key: string, body: PutBody, options?: PutOptions) {
    this.calls.push({ op: 'put', key });
    return this.#inner.put(key, body, options);
  }

  delete(key: string) {
    this.calls.push({ op: 'delete', key });
    return this.#inner.delete(key);
  }

  list(prefix: string, options?: ListOptions) {
    this.calls.push({ op: 'list', key: prefix });
    return this.#inner.list(prefix, options);
  }
}
