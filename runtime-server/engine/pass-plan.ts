import type { Served } from './served.ts';
import type { LiveApp } from './worker-code.ts';

/**
 * One convergence pass's working set: what each app is to serve once the pass commits (`next`), and why a
 * change asked for did not make it (`failures`, by app key). Whatever falls through keeps what it served
 * before: a failed change never takes an app down.
 */
export class PassPlan {
  readonly next = new Map<string, Served>();
  readonly failures = new Map<string, unknown>();
  /** Changes left for a later pass (their project's checks had their share of this one): neither served nor failed. */
  readonly deferred = new Set<string>();
  readonly #served: ReadonlyMap<string, Served>;
  readonly #asked: ReadonlySet<string>;

  /** `served`: what is served now; `asked`: the apps whose desired state this pass converges on. */
  constructor(served: ReadonlyMap<string, Served>, asked: Iterable<string>) {
    this.#served = served;
    this.#asked = new Set(asked);
  }

  /** The apps whose loader id changes in this pass (new code, environment or tail). */
  changed(): Array<[string, Served]> {
    return [...this.next].filter(([key, s]) => this.#served.get(key)?.id !== s.id);
  }

  /** The releases whose loader id is new in this pass: each app's, and the new release of a rollout. */
  changedReleases(): Array<{ key: string; live: LiveApp; id: string }> {
    const out: Array<{ key: string; live: LiveApp; id: string }> = [];
    for (const [key, s] of this.next) {
      const before = this.#served.get(key);
      const known = new Set([before?.id, before?.canary?.id]);
      if (!known.has(s.id)) out.push({ key, live: s.live, id: s.id });
      if (s.canary && !known.has(s.canary.id)) out.push({ key, live: s.canary.live, id: s.canary.id });
    }
    return out;
  }

  /** `key` keeps what it served (nothing, if it served nothing); its change fails with `error`. */
  keepPrevious(key: string, error: unknown): void {
    const previous = this.#served.get(key);
    if (previous) this.next.set(key, previous);
    else this.next.delete(key);
    this.failures.set(key, error);
  }

  /** `key` keeps what it served (nothing, if it served nothing) until a later pass makes its change. */
  defer(key: string): void {
    const previous = this.#served.get(key);
    if (previous) this.next.set(key, previous);
    else this.next.delete(key);
    this.deferred.add(key);
  }

  /**
   * Shards that did not take their tables: their apps stay as they were, and a change asked of them fails with
   * the shard's error unless it had failed already (its own error says more).
   */
  keepRefusedShards(refused: ReadonlyMap<number, unknown>, shardOfKey: (key: string) => number): void {
    for (const key of new Set([...this.next.keys(), ...this.#served.keys()])) {
      const err = refused.get(shardOfKey(key));
      if (err === undefined) continue;
      const previous = this.#served.get(key);
      if (previous) this.next.set(key, previous);
      else this.next.delete(key);
      if (this.#asked.has(key) && !this.failures.has(key)) this.failures.set(key, err);
    }
  }

  /** The pass failed as a whole (nothing committed): every change asked fails with `error` unless it had failed already. */
  failAll(error: unknown): void {
    for (const key of this.#asked) if (!this.failures.has(key)) this.failures.set(key, error);
  }
}
