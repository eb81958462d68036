/** WebSockets a project holds open on a replica at once, by default (about 93 MB of workerd's memory). */
export const DEFAULT_WEBSOCKETS_PER_PROJECT = 1000;

/** A project's open WebSockets: in all, and by client. */
interface ProjectSockets {
  open: number;
  readonly byClient: Map<string, number>;
}

/**
 * The WebSockets each project holds open on a replica at once (the handshakes under way included). An open
 * WebSocket costs workerd about 93 KB of native memory that no isolate's heap shows, so nothing held the app to it:
 * 2,434 of them from one client stopped a shard at its memory bound, every tenant of the shard with it, with no
 * app blamed (found in review). Past the bound a project's new WebSocket is refused; its open ones go on. One
 * client (an address, an IPv6 /64) holds at most half of it, so that no one client keeps the others out; none is
 * ever closed to make room for another, since a handshake the app then refuses would have cost someone theirs
 * (found in review). Clients that all share one address (an ingress not trusted for X-Forwarded-For, a load
 * balancer's SNAT) share that half.
 */
export class WebSocketBudget {
  readonly #perProject: number;
  readonly #perClient: number;
  readonly #projects = new Map<string, ProjectSockets>();

  constructor(perProject: number) {
    this.#perProject = perProject;
    this.#perClient = Math.max(1, Math.floor(perProject / 2));
  }

  /**
   * A place for one more of `project`'s WebSockets, from `client` (an address key), with what gives it back (once),
   * or why there is none: the project holds its bound (`project`), or the client half of it (`client`).
   */
  take(project: string, client: string): { giveBack: () => void } | { refused: 'project' | 'client' } {
    const sockets = this.#projects.get(project) ?? { open: 0, byClient: new Map<string, number>() };
    if (sockets.open >= this.#perProject) return { refused: 'project' };
    const mine = sockets.byClient.get(client) ?? 0;
    if (mine >= this.#perClient) return { refused: 'client' };
    this.#projects.set(project, sockets);
    sockets.open += 1;
    sockets.byClient.set(client, mine + 1);
    let given = false;
    const giveBack = () => {
      if (given) return;
      given = true;
      sockets.open -= 1;
      const left = (sockets.byClient.get(client) ?? 1) - 1;
      if (left > 0) sockets.byClient.set(client, left);
      else sockets.byClient.delete(client);
      if (sockets.open === 0) this.#projects.delete(project);
    };
    return { giveBack };
  }

  get bound(): number {
    return this.#perProject;
  }

  /** What one client may hold of a project's bound. */
  get perClient(): number {
    return this.#perClient;
  }
}
