// Test helper: an ObjectStore wrapper that holds one write until the test lets it go, to order a write against
// other steps (a pause between two steps of a protocol, an upload still going while something else runs).
import type { ObjectStore, PutBody, PutOptions } from '../object-store.ts';
import { ForwardingObjectStore } from './forwarding-object-store.ts';

/**
 * Holds the first put matching `match` until `release()`; `reached` resolves when it arrives, `passed` once the
 * store answered it.
 */
export class GateStore extends ForwardingObjectStore {
  readonly #match: (key: string) => boolean;
  #armed = true;
  #release!: () => void;
  readonly #opened = new Promise<void>((resolve) => (this.#release = resolve));
  #arrive!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.#arrive = resolve));
  #pass!: () => void;
  readonly passed = new Promise<void>((resolve) => (this.#pass = resolve));

  constructor(inner: ObjectStore, match: (key: string) => boolean) {
    super(inner);
    this.#match = match;
  }

  release(): void {
    this.#release();
  }

  override async put(key: string, body: PutBody, options?: PutOptions) {
    if (!this.#armed || !this.#match(key)) return super.put(key, body, options);
    this.#armed = false;
    this.#arrive();
    await this.#opened;
    try {
      return await super.put(key, body, options);
    } finally {
      this.#pass();
    }
  }
}
