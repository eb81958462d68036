import type { DatabaseEngine } from './shards/engine-port.ts';

/**
 * Which databases have a connection open in the engine, and when each was last used, least recently used first
 * (a Map keeps insertion order, and a use moves the tenant to the end), with how many are open in each shard:
 * what closing idle databases walks.
 */
export class OpenDatabases {
  readonly #lastUsed = new Map<string, number>();
  readonly #perShard = new Map<number, number>();
  readonly #now: () => number;
  readonly #shardOf: (tenant: string) => number;

  constructor(options: { readonly now?: () => number; readonly shardOf?: (tenant: string) => number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#shardOf = options.shardOf ?? (() => 0);
  }

  /** The engine opened or ran something on `tenant`'s connection. */
  used(tenant: string): void {
    if (!this.#lastUsed.delete(tenant)) this.#count(tenant, 1);
    this.#lastUsed.set(tenant, this.#now());
  }

  closed(tenant: string): void {
    if (this.#lastUsed.delete(tenant)) this.#count(tenant, -1);
  }

  /**
   * In each shard with more than `max` open, the least recently used past the number over it, among those not used
   * since `before` that `closable` lets go: an LRU bound, so databases opened and left by some tenants cannot keep
   * another's from opening. One that cannot close now (a stream holds it) is passed over for the next, or it would
   * take a place in every round and the shard would stay over the bound.
   */
  overBound(max: number, before: number, closable: (tenant: string) => boolean = () => true): string[] {
    const over = new Map<number, number>();
    for (const [shard, count] of this.#perShard) if (count > max) over.set(shard, count - max);
    if (over.size === 0) return [];
    const picked: string[] = [];
    for (const [tenant, at] of this.#lastUsed) {
      if (at > before) break;
      const shard = this.#shardOf(tenant);
      const left = over.get(shard) ?? 0;
      if (left === 0 || !closable(tenant)) continue;
      picked.push(tenant);
      over.set(shard, left - 1);
    }
    return picked;
  }

  #count(tenant: string, delta: number): void {
    const shard = this.#shardOf(tenant);
    const count = (this.#perShard.get(shard) ?? 0) + delta;
    if (count === 0) this.#perShard.delete(shard);
    else this.#perShard.set(shard, count);
  }

  isOpen(tenant: string): boolean {
    return this.#lastUsed.has(tenant);
  }

  /** When `tenant` was last used, if it is open. */
  lastUsedAt(tenant: string): number | undefined {
    return this.#lastUsed.get(tenant);
  }

  /** The open databases not used since `time`, least recently used first. */
  idleSince(time: number): string[] {
    const idle: string[] = [];
    for (const [tenant, at] of this.#lastUsed) {
      if (at > time) break;
      idle.push(tenant);
    }
    return idle;
  }

  get count(): number {
    return this.#lastUsed.size;
  }
}

/**
 * `engine`, telling `open` of every connection it opens, uses or loses. Every call but a stream's close may open
 * the connection (the engine opens a closed one on demand), so each counts as a use; a shard that died lost its
 * tenants' connections.
 */
export function trackOpenDatabases(engine: DatabaseEngine, open: OpenDatabases): DatabaseEngine {
  return {
    databasePath: (tenant) => engine.databasePath(tenant),
    async open(tenant, limits) {
      await engine.open(tenant, limits);
      open.used(tenant);
    },
    async run(run) {
      open.used(run.tenant);
      return engine.run(run);
    },
    closeStream: (tenant, stream) => engine.closeStream(tenant, stream),
    async checkpoint(tenant) {
      await engine.checkpoint(tenant);
      open.used(tenant);
    },
    async closeTenant(tenant) {
      await engine.closeTenant(tenant);
      open.closed(tenant);
    },
    onRestart(listener) {
      engine.onRestart((affected) => {
        for (const tenant of open.idleSince(Number.POSITIVE_INFINITY)) if (affected(tenant)) open.closed(tenant);
        listener(affected);
      });
    },
    close: () => engine.close(),
  };
}
