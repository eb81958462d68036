/** WebSockets an account's projects hold open on a replica at once, by default (about 93 MB of workerd's memory). */
export const DEFAULT_WEBSOCKETS_PER_PROJECT = 1000;

/** An account's open WebSockets: in all, and by client. */
interface AccountSockets {
  open: number;
  readonly byClient: Map<string, number>;
}

/**
 * The WebSockets each account (the projects one user created: the engine's `accountOf`) holds open on a replica at
 * once (the handshakes under way included). An open WebSocket costs workerd about 93 KB of native memory that no
 * isolate's heap shows, so nothing held the app to it: 2,434 of them from one client stopped a shard at its memory
 * bound, every tenant of the shard with it, with no app blamed (found in review). The bound is the account's, as
 * the startup budget and the shard stops are: counted per project, one user's ten projects on one shard held ten
 * times it and stopped the shard all the same (found in review, 2026-12-07). Past the bound an account's new
 * WebSocket is refused; its open ones go on. One client (an address, an IPv6 /64) holds at most half of it, so that
 * no one client keeps the others out; none is ever closed to make room for another, since a handshake the app then
 * refuses would have cost someone theirs (found in review). Clients that all share one address (an ingress not
 * trusted for X-Forwarded-For, a load balancer's SNAT) share that half.
 */
export class WebSocketBudget {
  readonly #perAccount: number;
  readonly #perClient: number;
  readonly #accounts = new Map<string, AccountSockets>();

  constructor(perAccount: number) {
    this.#perAccount = perAccount;
    this.#perClient = Math.max(1, Math.floor(perAccount / 2));
  }

  /**
   * A place for one more of `account`'s WebSockets, from `client` (an address key), with what gives it back (once),
   * or why there is none: the account holds its bound (`account`), or the client half of it (`client`).
   */
  take(account: string, client: string): { giveBack: () => void } | { refused: 'account' | 'client' } {
    const sockets = this.#accounts.get(account) ?? { open: 0, byClient: new Map<string, number>() };
    if (sockets.open >= this.#perAccount) return { refused: 'account' };
    const mine = sockets.byClient.get(client) ?? 0;
    if (mine >= this.#perClient) return { refused: 'client' };
    this.#accounts.set(account, sockets);
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
      if (sockets.open === 0) this.#accounts.delete(account);
    };
    return { giveBack };
  }

  get bound(): number {
    return this.#perAccount;
  }

  /** What one client may hold of an account's bound. */
  get perClient(): number {
    return this.#perClient;
  }
}
