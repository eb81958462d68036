import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import { objectClient, SECRETS, secretText, type KubeConnection, type ObjectClient, type SecretObject } from '../../../src/kube/index.ts';
import { databaseTokenSha256, generateDatabaseToken } from '../../../src/platform/databases/database-token.ts';
import { ensureOwnedSecret, ownedBy } from './owned-secret.ts';

/** What `ensure` found: the token's hash, a Secret of that name that is someone else's, or no right to Secrets there. */
export type MintedToken = { kind: 'minted'; name: string; sha256: string } | { kind: 'conflict' | 'forbidden'; name: string };

/**
 * The Secrets of Databases declared without `spec.tokens` (by `kubectl apply` or GitOps): the controller mints a
 * token once into `<database>-database`, owned by the Database (deleted with it), and the engine accepts its hash.
 * Deleting the Secret rotates the token: the next reconcile mints a new one and the old stops working.
 *
 * Read with a GET in the Database's namespace, never watched: a watch across namespaces needs the right to list
 * every Secret of the cluster, and the operator reaches Secrets only in project namespaces (the RoleBinding the
 * Project controller writes there). A deleted Secret is so noticed at the Database's next reconcile, its usage
 * refresh (every 30 s by default).
 */
export class TokenSecrets {
  readonly #client: ObjectClient<SecretObject>;

  constructor(kube: KubeConnection) {
    this.#client = objectClient<SecretObject>(kube, SECRETS);
  }

  static nameFor(db: Database): string {
    return `${db.metadata?.name ?? ''}-database`;
  }

  async ensure(db: Database, url: string): Promise<MintedToken> {
    const name = TokenSecrets.nameFor(db);
    const found = await ensureOwnedSecret(this.#client, db, name, () => ({ DATABASE_URL: url, DATABASE_TOKEN: generateDatabaseToken() }));
    const token = found.kind === 'owned' ? secretText(found.secret, 'DATABASE_TOKEN') : undefined;
    if (found.kind === 'forbidden') return { kind: 'forbidden', name };
    if (!token) return { kind: 'conflict', name };
    return { kind: 'minted', name, sha256: databaseTokenSha256(token) };
  }

  /**
   * Deletes the minted Secret of `db` if its status names one: its tokens are now in the spec, and that token no
   * longer works. (A Secret minted by a reconcile that ended before writing the status stays, owned by the
   * Database and deleted with it; its token is not among those the engine accepts.)
   */
  async removeMinted(db: Database): Promise<void> {
    if (!db.status?.tokenSecretName) return;
    const namespace = db.metadata?.namespace ?? '';
    const name = TokenSecrets.nameFor(db);
    const secret = await this.#client.get(namespace, name);
    if (!secret?.metadata?.uid || !ownedBy(secret, db)) return;
    await this.#client.delete(namespace, name, { preconditions: { uid: secret.metadata.uid } });
  }
}
