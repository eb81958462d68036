// Work a request starts that takes a core or a process for a while (a `git archive`, a fetch from a remote):
// so many at once per caller (the principal asking: one person's share across every project they have, as the
// repository's owner would be one project's), per repository owner (its share: many callers of one popular
// repository cannot take every run from the other owners) and on the instance, so one tenant's many cannot take
// them all.
import { KeyedSlots } from '../src/collections/keyed-slots.ts';
import { OwnerShareError } from './owner-share-error.ts';

export interface OwnerRunsOptions<Code extends string> {
  readonly perOwner: number;
  readonly total: number;
  /** What runs, for the refusals: "archives being made", "imports from a URL". */
  readonly what: string;
  readonly codes: { readonly owner: Code; readonly instance: Code };
  readonly retryAfterSeconds: number;
}

export class OwnerRuns<Code extends string> {
  readonly #slots: KeyedSlots;
  /** Runs per repository owner's share; the instance's total is counted by `#slots`. */
  readonly #owners: KeyedSlots;
  readonly #options: OwnerRunsOptions<Code>;

  constructor(options: OwnerRunsOptions<Code>) {
    this.#slots = new KeyedSlots({ total: options.total, perKey: options.perOwner });
    this.#owners = new KeyedSlots({ total: Number.POSITIVE_INFINITY, perKey: options.perOwner });
    this.#options = options;
  }

  /**
   * A run for `caller` on a repository of `owner`, given back by the function answered; 429 past the caller's share
   * or the owner's, 503 past the instance's. The owner is the repository's (a project on the platform), not the
   * person behind it: the callers are who could spend it, and a member of one project must not spend another's.
   */
  take(caller: string, owner?: string): () => void {
    const { what, codes, retryAfterSeconds } = this.#options;
    const ownerSlot = owner !== undefined && owner !== caller ? this.#owners.take(owner) : { release: () => {} };
    if (!('release' in ownerSlot)) {
      throw new OwnerShareError('owner', codes, `The repositories of ${owner} have ${ownerSlot.held} ${what} at once, the most one owner's may; retry when one is done.`, retryAfterSeconds);
    }
    const slot = this.#slots.take(caller);
    if ('release' in slot) {
      return () => {
        slot.release();
        ownerSlot.release();
      };
    }
    ownerSlot.release();
    if (slot.refused === 'key') throw new OwnerShareError('owner', codes, `${caller} has ${slot.held} ${what} at once, the most one caller may; retry when one is done.`, retryAfterSeconds);
    throw new OwnerShareError('instance', codes, `This server has as many ${what} as it runs at once; retry shortly.`, retryAfterSeconds);
  }

  /** Runs `work` as one of `caller`'s runs (on a repository of `owner`). */
  async run<T>(caller: string, work: () => Promise<T>, owner?: string): Promise<T> {
    const release = this.take(caller, owner);
    try {
      return await work();
    } finally {
      release();
    }
  }
}

/**
 * One `OwnerRuns` per key object (an instance's dependencies), made on first use: `perOwner` and `total` runs of
 * `what`, refused as `owner_<name>_limit` (429) and `<name>_busy` (503).
 */
export function runsPer<K extends object>(name: string, what: string, bounds: { perOwner: number; total: number; retryAfterSeconds: number }): (key: K) => OwnerRuns<string> {
  const made = new WeakMap<K, OwnerRuns<string>>();
  const options = { ...bounds, what, codes: { owner: `owner_${name}_limit`, instance: `${name}_busy` } };
  return (key) => {
    let runs = made.get(key);
    if (!runs) made.set(key, (runs = new OwnerRuns(options)));
    return runs;
  };
}
