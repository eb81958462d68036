/** WebSockets a project holds open on a replica at once, by default (about 93 MB of workerd's memory). */
export const DEFAULT_WEBSOCKETS_PER_PROJECT = 1000;

/** One open WebSocket: whose client it is, and how the budget closes it to make room. */
interface HeldSocket {
  readonly client: string;
  readonly close: () => void;
  given: boolean;
}

/** A project's open WebSockets, by client (each client's oldest first). */
class ProjectSockets {
  open = 0;
  readonly byClient = new Map<string, Set<HeldSocket>>();

  /** The client holding the most, and how many. */
  largest(): { client: string; held: Set<HeldSocket> } | undefined {
    let largest: { client: string; held: Set<HeldSocket> } | undefined;
    for (const [client, held] of this.byClient) if (!largest || held.size > largest.held.size) largest = { client, held };
    return largest;
  }
}

/**
 * The WebSockets each project holds open on a replica at once (the handshakes under way included). An open
 * WebSocket costs workerd about 93 KB of native memory that no isolate's heap shows, so nothing held the app to it:
 * 2,434 of them from one client stopped a shard at its memory bound, every tenant of the shard with it, with no
 * app blamed (found in review). Past the bound a project's new WebSocket is refused, unless its client holds fewer
 * than the client holding the most: then that client's oldest is closed to make room. So one client (one address,
 * an IPv6 /64) cannot keep every other out of a project's WebSockets, while clients that all share one address (an
 * ingress not trusted for X-Forwarded-For, a load balancer's SNAT) are refused past the bound as before.
 */
export class WebSocketBudget {
  readonly #perProject: number;
  readonly #projects = new Map<string, ProjectSockets>();

  constructor(perProject: number) {
    this.#perProject = perProject;
  }

  /**
   * A place for one more of `project`'s WebSockets, from `client` (an address key), with what gives it back (once),
   * or `undefined` when the project holds its bound and `client` is among those holding the most. `close` ends
   * the WebSocket should its place be given to another client's.
   */
  take(project: string, client: string, close: () => void): (() => void) | undefined {
    const sockets = this.#projects.get(project) ?? new ProjectSockets();
    if (sockets.open >= this.#perProject && !this.#makeRoom(project, sockets, client)) return undefined;
    this.#projects.set(project, sockets);
    const held: HeldSocket = { client, close, given: false };
    const ofClient = sockets.byClient.get(client);
    if (ofClient) ofClient.add(held);
    else sockets.byClient.set(client, new Set([held]));
    sockets.open += 1;
    return () => this.#giveBack(project, sockets, held);
  }

  get bound(): number {
    return this.#perProject;
  }

  /** Closes the oldest WebSocket of the client holding the most, when `client` holds fewer than it less one. */
  #makeRoom(project: string, sockets: ProjectSockets, client: string): boolean {
    const largest = sockets.largest();
    const mine = sockets.byClient.get(client)?.size ?? 0;
    if (!largest || mine + 1 >= largest.held.size) return false;
    const oldest = largest.held.values().next().value as HeldSocket;
    this.#giveBack(project, sockets, oldest);
    oldest.close();
    return true;
  }

  #giveBack(project: string, sockets: ProjectSockets, held: HeldSocket): void {
    if (held.given) return;
    held.given = true;
    sockets.open -= 1;
    const ofClient = sockets.byClient.get(held.client);
    ofClient?.delete(held);
    if (ofClient?.size === 0) sockets.byClient.delete(held.client);
    if (sockets.open === 0) this.#projects.delete(project);
  }
}
