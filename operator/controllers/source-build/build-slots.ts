/**
 * Which builds may run now: at most `total` at once, and `perProject` per project, so one project's burst of
 * pushes waits behind its own builds and never holds up another project's. Held in memory: after a restart, the
 * builds found running take their slots back first (`force`).
 */
export class BuildSlots {
  readonly #total: number;
  readonly #perProject: number;
  /** Build key → its project. */
  readonly #held = new Map<string, string>();
  readonly #freed: () => void;

  /** `freed`: called on every release of a held slot, so the builds waiting for one are looked at now, not at the next resync. */
  constructor(limits: { total: number; perProject: number }, freed: () => void = () => {}) {
    this.#total = limits.total;
    this.#perProject = limits.perProject;
    this.#freed = freed;
  }

  holds(key: string): boolean {
    return this.#held.has(key);
  }

  /** Takes a slot for the build `key` of `project` when one is free (or `force`); answers whether it holds one. */
  take(key: string, project: string, force = false): boolean {
    if (this.#held.has(key)) return true;
    const ofProject = [...this.#held.values()].filter((p) => p === project).length;
    if (!force && (this.#held.size >= this.#total || ofProject >= this.#perProject)) return false;
    this.#held.set(key, project);
    return true;
  }

  release(key: string): void {
    if (this.#held.delete(key)) this.#freed();
  }
}
