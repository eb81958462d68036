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
  readonly #projectOf: (tenant: string) => string;

  constructor(options: { readonly now?: () => number; readonly shardOf?: (tenant: string) => number; readonly projectOf?: (tenant: string) => string } = {}) {
    this.#now = options.now ?? Date.now;
    this.#shardOf = options.shardOf ?? (() => 0);
    this.#projectOf = options.projectOf ?? ((tenant) => tenant);
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
   * In each shard with more than `max` open, as many as it is over, among those not used since `before` that
   * `closable` lets go: each taken from the project with the most open in the shard, its least recently used. So
   * one project's many databases, opened and left or kept busy, close their own first and cannot push another
   * project's out. One that cannot close now (a stream holds it) is passed over for the next.
   */
  overBound(max: number, before: number, closable: (tenant: string) => boolean = () => true): string[] {
    const over = new Map<number, number>();
    for (const [shard, count] of this.#perShard) if (count > max) over.set(shard, count - max);
    if (over.size === 0) return [];
    // Per shard over its bound: every project's open count, and its candidates least recently used first.
    const shards = new Map<number, { open: Map<string, number>; candidates: Map<string, string[]> }>();
    for (const [tenant, at] of this.#lastUsed) {
      const shard = this.#shardOf(tenant);
      if (!over.has(shard)) continue;
      let found = shards.get(shard);
      if (!found) shards.set(shard, (found = { open: new Map(), candidates: new Map() }));
      const project = this.#projectOf(tenant);
      found.open.set(project, (found.open.get(project) ?? 0) + 1);
      if (at > before || !closable(tenant)) continue;
      const list = found.candidates.get(project);
      if (list) list.push(tenant);
      else found.candidates.set(project, [tenant]);
    }
    const picked: string[] = [];
    for (const [shard, { open, candidates }] of shards) {
      for (let left = over.get(shard) ?? 0; left > 0; left--) {
        let most: string | undefined;
        for (const project of candidates.keys()) if (most === undefined || open.get(project)! > open.get(most)!) most = project;
        if (most === undefined) break;
        const list = candidates.get(most)!;
        picked.push(list.shift()!);
        open.set(most, open.get(most)! - 1);
        if (list.length === 0) candidates.delete(most);
      }
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
    async run(run, cancel) {
      open.used(run.tenant);
      return engine.run(run, cancel);
    },
    closeStream: (tenant, stream) => engine.closeStream(tenant, stream),
    async checkpoint(tenant, project) {
      await engine.checkpoint(tenant, project);
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
