/**
 * Turns at a shard's one thread, a statement each. The waiting project that was served least recently goes first,
 * and within it its database served least recently, so a database with requests queued back to back (its next one
 * arrives as its last one ends) cannot go ahead of another that was already waiting, nor a project's many databases
 * ahead of another project's one: a request waits for at most one statement of each other project with work on the
 * shard (the statement cap is shared out by project too, shard-time.ts). Turns are handed out from `setImmediate`, after the event loop has read the requests already
 * sent, so a request that arrived during a long statement is among the candidates when it ends.
 */
export class FairTurns {
  #holder: string | undefined;
  readonly #waiting: { tenant: string; project: string; grant: () => void }[] = [];
  // When each database, and each project, was last given a turn (a counter, not a clock).
  readonly #served = new Map<string, number>();
  readonly #projectServed = new Map<string, number>();
  /** Each remembered database's project, and how many remembered databases each project has: a project is forgotten with its last one. */
  readonly #projectOf = new Map<string, string>();
  readonly #databases = new Map<string, number>();
  /** When each project was last given a turn (its latest last: a Map keeps insertion order). */
  readonly #grantedAt = new Map<string, number>();
  #turns = 0;
  #scheduled = false;

  /** Resolves when `tenant` (of `project`) may run a statement; call `release` after it. */
  acquire(tenant: string, project: string = tenant): Promise<void> {
    return new Promise((grant) => {
      this.#waiting.push({ tenant, project, grant });
      this.#schedule();
    });
  }

  /**
   * Whether a project other than `project` contends for the shard: one of its requests waits for a turn now, it
   * took one within `withinMs`, or it has a database here that had a turn since it opened (and is not closed yet),
   * whose next request may come at any moment. A statement cannot be cut once it runs on the shard's one thread, nor
   * can a request that arrives meanwhile even be seen, so a neighbour that asks now and then (more than `withinMs`
   * apart) contends too: judged only by who waits or had a turn lately, it found a long statement begun in each
   * quiet spell and waited most of its time limit, request after request (review-184 H6). (A neighbour asking again
   * and again is served first whenever it waits, so as a hog takes its turn the neighbour has often just had one and
   * is not waiting yet.)
   */
  othersContend(project: string, withinMs: number): boolean {
    if (this.#waiting.some((w) => w.project !== project)) return true;
    // Stops at the second project at most: the first is `project` itself or another.
    for (const other of this.#databases.keys()) if (other !== project) return true;
    const since = performance.now() - withinMs;
    for (const [other, at] of this.#grantedAt) {
      if (at < since) this.#grantedAt.delete(other);
      else if (other !== project) return true;
    }
    return false;
  }

  /**
   * How many projects other than `project` contend for the shard (at least one while any does, as
   * {@link othersContend} says): those with a request waiting for a turn now. Not those served lately, which on a
   * busy shard of small queries would be many, none of them waiting long.
   */
  contenders(project: string, withinMs: number): number {
    if (!this.othersContend(project, withinMs)) return 0;
    const waiting = new Set<string>();
    for (const w of this.#waiting) if (w.project !== project) waiting.add(w.project);
    return Math.max(1, waiting.size);
  }

  release(): void {
    this.#holder = undefined;
    this.#schedule();
  }

  /**
   * Forgets when `tenant` was served (its database closed), and its project with the last of its databases: a shard
   * sees many projects come and go, and what it remembers stays bounded by the databases it has open.
   */
  forget(tenant: string): void {
    this.#served.delete(tenant);
    const project = this.#projectOf.get(tenant);
    if (project === undefined) return;
    this.#projectOf.delete(tenant);
    const left = (this.#databases.get(project) ?? 1) - 1;
    if (left > 0) return void this.#databases.set(project, left);
    this.#databases.delete(project);
    this.#projectServed.delete(project);
  }

  /** How many databases and projects the turns remember (for tests: those of the databases open on the shard). */
  get remembered(): { databases: number; projects: number } {
    return { databases: this.#served.size, projects: this.#projectServed.size };
  }

  #schedule(): void {
    if (this.#scheduled || this.#holder !== undefined || this.#waiting.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#dispatch();
    });
  }

  #dispatch(): void {
    if (this.#holder !== undefined || this.#waiting.length === 0) return;
    const rank = (w: { tenant: string; project: string }) => [this.#projectServed.get(w.project) ?? -1, this.#served.get(w.tenant) ?? -1] as const;
    let next = 0;
    let best = rank(this.#waiting[0]!);
    for (let i = 1; i < this.#waiting.length; i++) {
      const candidate = rank(this.#waiting[i]!);
      if (candidate[0] < best[0] || (candidate[0] === best[0] && candidate[1] < best[1])) [next, best] = [i, candidate];
    }
    const [chosen] = this.#waiting.splice(next, 1);
    this.#holder = chosen!.tenant;
    if (!this.#projectOf.has(chosen!.tenant)) {
      this.#projectOf.set(chosen!.tenant, chosen!.project);
      this.#databases.set(chosen!.project, (this.#databases.get(chosen!.project) ?? 0) + 1);
    }
    this.#served.set(chosen!.tenant, ++this.#turns);
    this.#projectServed.set(chosen!.project, this.#turns);
    this.#grantedAt.delete(chosen!.project);
    this.#grantedAt.set(chosen!.project, performance.now());
    chosen!.grant();
  }
}
