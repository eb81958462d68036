import type { AccessToken } from '../../src/apis/v1alpha1/index.ts';
import type { Informer, KubeObject } from '../../src/kube/index.ts';

/**
 * The AccessTokens this process reads without an apiserver round trip: the informer's cache, indexed by
 * `spec.tokenHash`, overlaid with the responses of this process's own writes until the informer catches up.
 *
 * An overlay rather than waiting for the watch: a write's response is authoritative, so reads reflect it at
 * once even while the watch lags or reconnects, and a write never hangs on a broken watch.
 *
 * "Caught up" cannot be decided by ordering resourceVersions (Kubernetes promises only equality), so it
 * rests on what AccessTokens guarantee instead: identity fields are immutable and revocation is one-way.
 * The informer covers a write once it holds the same object (uid), revoked if the write revoked it, or once
 * it has seen that object deleted. Until then reads merge the two and keep `revoked` if either has it, so
 * a lagging cache can never un-revoke a token.
 */
export class AccessTokenCache {
  readonly #informer: Informer<AccessToken>;
  readonly #now: () => number;
  readonly #written = new Map<string, { readonly object: AccessToken; readonly at: number }>();
  readonly #namesByHash = new Map<string, Set<string>>();
  readonly #hashByName = new Map<string, string>();
  /** The informer's tokens by `spec.user`, like the hash index: a user's listing reads their tokens only. */
  readonly #namesByUser = new Map<string, Set<string>>();
  readonly #userByName = new Map<string, string>();
  #revision = 0;

  constructor(informer: Informer<AccessToken>, now: () => number = Date.now) {
    this.#informer = informer;
    this.#now = now;
    informer.onChange((object) => this.#observe(object));
    // A shared informer may already hold objects when we subscribe.
    for (const object of informer.list()) this.#reindex(nameOf(object));
  }

  /** Changes with every change of what reads answer: an informer event, a write of ours, a forgotten one. */
  get revision(): number {
    return this.#revision;
  }

  /** Records what the apiserver answered to one of our writes, so reads reflect it from now on. */
  record(object: AccessToken): void {
    this.#revision++;
    const name = nameOf(object);
    // The watch may have delivered this very write before its response arrived.
    if (covers(this.#informer.get(name), object)) this.#written.delete(name);
    else this.#written.set(name, { object, at: this.#now() });
  }

  /** The token named `name`, as this process last saw it. */
  get(name: string): AccessToken | undefined {
    const cached = this.#informer.get(name);
    const written = this.#written.get(name)?.object;
    if (!written) return cached;
    if (uidOf(cached) !== uidOf(written)) return written;
    return written.spec.revoked && !cached?.spec.revoked ? withRevoked(cached ?? written) : cached;
  }

  /** Every token whose hash is exactly `tokenHash` (normally at most one). */
  findByHash(tokenHash: string): AccessToken[] {
    const names = new Set(this.#namesByHash.get(tokenHash));
    for (const [name, { object }] of this.#written) if (object.spec.tokenHash === tokenHash) names.add(name);
    return this.#resolve(names).filter((object) => object.spec.tokenHash === tokenHash);
  }

  /** Every token of `userId`. */
  listForUser(userId: string): AccessToken[] {
    const names = new Set(this.#namesByUser.get(userId));
    for (const [name, { object }] of this.#written) if (object.spec.user === userId) names.add(name);
    return this.#resolve(names).filter((object) => object.spec.user === userId);
  }

  /** Our writes the informer has not covered within `ageMs`: worth checking against the apiserver. */
  lingering(ageMs: number): AccessToken[] {
    const before = this.#now() - ageMs;
    return [...this.#written.values()].filter(({ at }) => at <= before).map(({ object }) => object);
  }

  /**
   * Drops our write of `object` (matched by uid) because the apiserver no longer holds it. Needed when a
   * relist skipped both its creation and its deletion, so no event will ever cover it.
   */
  forget(object: AccessToken): void {
    const name = nameOf(object);
    if (uidOf(this.#written.get(name)?.object) !== uidOf(object)) return;
    // The cache still holds that very object, as it was before our write (a revocation, say): dropping the
    // write would bring the stale copy back. The informer's deletion event retires the write instead.
    if (uidOf(this.#informer.get(name)) === uidOf(object)) return;
    this.#written.delete(name);
    this.#revision++;
  }

  /** How many writes still wait for the informer (for tests and metrics). */
  get pendingWrites(): number {
    return this.#written.size;
  }

  #resolve(names: Set<string>): AccessToken[] {
    return [...names].map((name) => this.get(name)).filter((object) => object !== undefined);
  }

  #observe(object: AccessToken): void {
    this.#revision++;
    const name = nameOf(object);
    this.#reindex(name);
    const written = this.#written.get(name)?.object;
    if (!written) return;
    const cached = this.#informer.get(name);
    // An event about our object after which the cache no longer holds it: the informer saw it deleted.
    const deleted = uidOf(object) === uidOf(written) && uidOf(cached) !== uidOf(written);
    if (deleted || covers(cached, written)) this.#written.delete(name);
  }

  #reindex(name: string): void {
    const cached = this.#informer.get(name);
    reindex(this.#namesByHash, this.#hashByName, name, cached?.spec.tokenHash);
    reindex(this.#namesByUser, this.#userByName, name, cached?.spec.user);
  }
}

/** Files `name` under `key` in a one-to-many index (`keyByName` its reverse), or under none. */
function reindex(namesByKey: Map<string, Set<string>>, keyByName: Map<string, string>, name: string, key: string | undefined): void {
  const before = keyByName.get(name);
  if (before === key) return;
  if (before !== undefined) {
    const names = namesByKey.get(before);
    names?.delete(name);
    if (names?.size === 0) namesByKey.delete(before);
  }
  if (key === undefined) {
    keyByName.delete(name);
    return;
  }
  keyByName.set(name, key);
  const names = namesByKey.get(key) ?? new Set<string>();
  namesByKey.set(key, names.add(name));
}

/** The cached object carries everything the write did: same object, and revoked if the write revoked it. */
function covers(cached: AccessToken | undefined, written: AccessToken): boolean {
  return cached !== undefined && uidOf(cached) === uidOf(written) && (!written.spec.revoked || cached.spec.revoked === true);
}

function withRevoked(object: AccessToken): AccessToken {
  return { ...object, spec: { ...object.spec, revoked: true } };
}

const nameOf = (object: KubeObject): string => object.metadata?.name ?? '';
const uidOf = (object: KubeObject | undefined): string | undefined => object?.metadata?.uid;
