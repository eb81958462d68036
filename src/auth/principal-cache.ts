import { RecentMap } from '../collections/recent-map.ts';
import { bearerToken, resolvePrincipal, type Principal } from './authenticate.ts';
import type { TokenStore } from './ports.ts';
import { hashToken, TOKEN_LENGTH, type PlaintextToken } from './token.ts';

const SCHEME = 'Bearer ';
/** `Bearer cwt_…` exactly as clients send it; any other spelling takes the full path. */
const HEADER_LENGTH = SCHEME.length + TOKEN_LENGTH;

/** What the cache reads of the store. */
type PrincipalSource = Pick<TokenStore, 'findTokenByHash' | 'getUser' | 'revision'>;

interface Entry {
  readonly principal: Principal;
  /** Milliseconds since the epoch; `Infinity` for a token that does not expire. */
  readonly expiresAtMs: number;
  /** The store's {@link TokenStore.revision} the principal was resolved at. */
  readonly revision: number;
}

/**
 * Authentication with a memory: the principal each recently presented token resolved to, keyed by the
 * token's SHA-256 (never the token), so a repeat caller costs one hash and one map lookup instead of
 * parsing, store lookups and record copies (measured: bench/README.md).
 *
 * An entry is used only while the store's {@link TokenStore.revision} is the one it was resolved at: any
 * token or user change anywhere (a revocation, a deletion, a user losing administrator rights) retires
 * every entry at once, so the next request sees exactly what {@link resolvePrincipal} would answer. Expiry
 * is checked on every hit. Only successes are remembered: unknown tokens cannot fill the memory, which
 * holds at most `capacity` principals.
 */
export class PrincipalCache {
  readonly #store: PrincipalSource;
  readonly #entries: RecentMap<Entry>;

  constructor(store: PrincipalSource, capacity = 10_000) {
    this.#store = store;
    this.#entries = new RecentMap(capacity);
  }

  /**
   * The principal for `authorizationHeader` if it was resolved since the store last changed and has not
   * expired at `nowMs`; `undefined` otherwise (then call {@link authenticate}). Never throws.
   */
  cached(authorizationHeader: string | undefined, nowMs: number): Principal | undefined {
    if (authorizationHeader?.length !== HEADER_LENGTH || !authorizationHeader.startsWith(SCHEME)) return undefined;
    // Not parsed: a hit means these exact characters were parsed and resolved before (same SHA-256).
    const entry = this.#entries.get(hashToken(authorizationHeader.slice(SCHEME.length) as PlaintextToken));
    if (entry === undefined || entry.revision !== this.#store.revision || nowMs >= entry.expiresAtMs) return undefined;
    return entry.principal;
  }

  /**
   * Authenticates in full ({@link bearerToken}, then {@link resolvePrincipal}) and remembers a success.
   *
   * @throws UnauthorizedError as {@link resolvePrincipal} does.
   */
  async authenticate(authorizationHeader: string | undefined, now: Date): Promise<Principal> {
    const tokenHash = hashToken(bearerToken(authorizationHeader));
    // Read before the lookups: a change that lands while they run must keep their answer out of the cache.
    const revision = this.#store.revision;
    const principal = await resolvePrincipal(tokenHash, this.#store, now);
    if (revision === this.#store.revision) {
      const expiresAtMs = Math.min(principal.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY, principal.session?.idleUntil.getTime() ?? Number.POSITIVE_INFINITY);
      this.#entries.set(tokenHash, { principal, expiresAtMs, revision });
    }
    return principal;
  }
}
