import { API_VERSION } from '../../../src/apis/v1alpha1/group-version.ts';
import { DATABASE_LABEL, type Database } from '../../../src/apis/v1alpha1/database.ts';
import { isAlreadyExists, objectClient, SECRETS, statusCodeOf, type KubeConnection, type KubeObject, type ObjectClient } from '../../../src/kube/index.ts';
import { databaseTokenSha256, generateDatabaseToken } from '../../../src/platform/databases/database-token.ts';

/** A Secret holding a minted database token: `DATABASE_URL` and `DATABASE_TOKEN`, ready for `envFrom`. */
export type TokenSecret = KubeObject & { type?: string; data?: Record<string, string> };

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
  readonly #client: ObjectClient<TokenSecret>;

  constructor(kube: KubeConnection) {
    this.#client = objectClient<TokenSecret>(kube, SECRETS);
  }

  static nameFor(db: Database): string {
    return `${db.metadata?.name ?? ''}-database`;
  }

  async ensure(db: Database, url: string): Promise<MintedToken> {
    const namespace = db.metadata?.namespace ?? '';
    const name = TokenSecrets.nameFor(db);
    let secret: TokenSecret | undefined;
    try {
      secret = await this.#client.get(namespace, name);
      if (!secret) {
        try {
          secret = await this.#client.create(this.#newSecret(db, name, url));
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
          secret = await this.#client.get(namespace, name);
        }
      }
    } catch (err) {
      // No binding in this namespace: the Project controller writes one into project namespaces only.
      if (statusCodeOf(err) === 403) return { kind: 'forbidden', name };
      throw err;
    }
    const owned = secret?.metadata?.ownerReferences?.some((ref) => ref.uid === db.metadata?.uid && ref.controller === true);
    const token = secret?.data?.DATABASE_TOKEN;
    if (!owned || !token) return { kind: 'conflict', name };
    return { kind: 'minted', name, sha256: databaseTokenSha256(Buffer.from(token, 'base64').toString('utf8')) };
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
    if (!secret?.metadata?.ownerReferences?.some((ref) => ref.uid === db.metadata?.uid && ref.controller === true)) return;
    await this.#client.delete(namespace, name, { preconditions: { uid: secret.metadata.uid } });
  }

  #newSecret(db: Database, name: string, url: string): TokenSecret {
    const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64');
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name,
        namespace: db.metadata?.namespace ?? '',
        labels: { [DATABASE_LABEL]: db.metadata?.name ?? '' },
        ownerReferences: [{ apiVersion: API_VERSION, kind: 'Database', name: db.metadata?.name ?? '', uid: db.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
      },
      data: { DATABASE_URL: encode(url), DATABASE_TOKEN: encode(generateDatabaseToken()) },
    };
  }
}
