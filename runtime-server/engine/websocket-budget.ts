/** WebSockets a project holds open on a replica at once, by default (about 93 MB of workerd's memory). */
export const DEFAULT_WEBSOCKETS_PER_PROJECT = 1000;

/**
 * The WebSockets each project holds open on a replica at once (the handshakes under way included). An open
 * WebSocket costs workerd about 93 KB of native memory that no isolate's heap shows, so nothing held the app to it:
 * 2,434 of them from one client stopped a shard at its memory bound, every tenant of the shard with it, with no
 * app blamed (found in review). Past the bound a project's new WebSocket is refused; its open ones go on.
 */
export class WebSocketBudget {
  readonly #perProject: number;
  readonly #open = new Map<string, number>();

  constructor(perProject: number) {
    this.#perProject = perProject;
  }

  /** A place for one more of `project`'s WebSockets, with what gives it back (once), or `undefined` past the bound. */
  take(project: string): (() => void) | undefined {
    const open = this.#open.get(project) ?? 0;
    if (open >= this.#perProject) return undefined;
    this.#open.set(project, open + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.#open.get(project) ?? 1) - 1;
      if (left <= 0) this.#open.delete(project);
      else this.#open.set(project, left);
    };
  }

  get bound(): number {
    return this.#perProject;
  }
}
