import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import { objectKey, type Informer } from '../../../src/kube/index.ts';

/**
 * Which Database named each token hash of `spec.tokens` first, across the cluster. Tokens are random, so two
 * Databases naming one hash means one copied the other's (from a manifest committed with its hashes, say): cw-db
 * would route the token to either, so the one created later is refused the hash (its status says so) and the
 * first keeps it. Kept up to date from the informer's changes, so a reconcile looks its hashes up instead of
 * walking every Database.
 */
export class TokenClaims {
  readonly #databases: Informer<Database>;
  /** Hash → the Databases naming it (key → creation time). */
  readonly #byHash = new Map<string, Map<string, number>>();
  readonly #byKey = new Map<string, string[]>();

  constructor(databases: Informer<Database>) {
    this.#databases = databases;
    databases.onChange((db) => this.#refresh(objectKey(db)));
    for (const db of databases.list()) this.#refresh(objectKey(db));
  }

  /** The first of `db`'s hashes another Database named before it, with that Database's key; undefined when none. */
  takenFrom(db: Database): { sha256: string; by: string } | undefined {
    const key = objectKey(db);
    const created = createdAt(db);
    for (const { sha256 } of db.spec.tokens ?? []) {
      for (const [other, otherCreated] of this.#byHash.get(sha256) ?? []) {
        if (other !== key && (otherCreated < created || (otherCreated === created && this.#firstOfSameSecond(other, db)))) return { sha256, by: other };
      }
    }
    return undefined;
  }

  /**
   * Of two Databases created in the same second (the resolution of creationTimestamp), whether `other` came first:
   * one already served did (a copy can only be made once the first was applied), else the first by key.
   */
  #firstOfSameSecond(other: string, db: Database): boolean {
    const served = (d: Database | undefined) => d?.status?.state === 'ready';
    const otherServed = served(this.#databases.get(other));
    if (otherServed !== served(db)) return otherServed;
    return other < objectKey(db);
  }

  #refresh(key: string): void {
    for (const sha256 of this.#byKey.get(key) ?? []) {
      const claims = this.#byHash.get(sha256);
      claims?.delete(key);
      if (claims?.size === 0) this.#byHash.delete(sha256);
    }
    this.#byKey.delete(key);
    const db = this.#databases.get(key);
    if (!db) return;
    const hashes = (db.spec.tokens ?? []).map((t) => t.sha256);
    for (const sha256 of hashes) {
      let claims = this.#byHash.get(sha256);
      if (!claims) this.#byHash.set(sha256, (claims = new Map()));
      claims.set(key, createdAt(db));
    }
    this.#byKey.set(key, hashes);
  }
}

function createdAt(db: Database): number {
  const at = Date.parse(db.metadata?.creationTimestamp ?? '');
  return Number.isNaN(at) ? Number.POSITIVE_INFINITY : at;
}
