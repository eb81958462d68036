// Test helper: an ObjectStore wrapper that counts the calls made through it, by operation and key.
import type { GetOptions, ListOptions, PrefixListOptions, PutBody, PutOptions } from '../object-store.ts';
import { ForwardingObjectStore } from './forwarding-object-store.ts';

export type CountedOp = 'get' | 'head' | 'put' | 'delete' | 'list';

export interface CountedCall {
  op: CountedOp;
  key: string;
}

/** Forwards every call to `inner` and records it; `reset()` starts a new measurement. */
export class CountingObjectStore extends ForwardingObjectStore {
  readonly calls: CountedCall[] = [];

  get total(): number {
    return this.calls.length;
  }

  count(op: CountedOp): number {
    return this.calls.filter((c) => c.op === op).length;
  }

  reset(): void {
    this.calls.length = 0;
  }

  override get(key: string, options?: GetOptions) {
    this.calls.push({ op: 'get', key });
    return super.get(key, options);
  }

  /** A streamed read is one GET request too. */
  override getStream(key: string) {
    this.calls.push({ op: 'get', key });
    return super.getStream(key);
  }

  override head(key: string) {
    this.calls.push({ op: 'head', key });
    return super.head(key);
  }

  override put(key: string, body: PutBody, options?: PutOptions) {
    this.calls.push({ op: 'put', key });
    return super.put(key, body, options);
  }

  override delete(key: string) {
    this.calls.push({ op: 'delete', key });
    return super.delete(key);
  }

  override list(prefix: string, options?: ListOptions) {
    this.calls.push({ op: 'list', key: prefix });
    return super.list(prefix, options);
  }

  override listPrefixes(prefix: string, options?: PrefixListOptions) {
    this.calls.push({ op: 'list', key: prefix });
    return super.listPrefixes(prefix, options);
  }
}
