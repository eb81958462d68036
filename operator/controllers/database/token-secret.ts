import { API_VERSION } from '../../../src/apis/v1alpha1/group-version.ts';
import { DATABASE_LABEL, type Database } from '../../../src/apis/v1alpha1/database.ts';
import { isAlreadyExists, objectClient, SECRETS, type Informer, type KubeConnection, type KubeObject, type ObjectClient } from '../../../src/kube/index.ts';
import { databaseTokenSha256, generateDatabaseToken } from '../../../src/platform/databases/database-token.ts';
import { controllerOwnerKeys } from '../../controller-runtime/controller.ts';

/** A Secret holding a minted database token: `DATABASE_URL` and `DATABASE_TOKEN`, ready for `envFrom`. */
export type TokenSecret = KubeObject & { type?: string; data?: Record<string, string> };

/** What `ensure` found: the token's hash, or a Secret of that name that is someone else's. */
export type MintedToken = { kind: 'minted'; name: string; sha256: string } | { kind: 'conflict'; name: string };

/**
 * The Secrets of Databases declared without `spec.tokens` (by `kubectl apply` or GitOps): the controller mints a
 * token once into `<database>-database`, owned by the Database (deleted with it), and the engine accepts its hash.
 * Deleting the Secret rotates the token: the next reconcile mints a new one and the old stops working.
 */
export class TokenSecrets {
  readonly #client: ObjectClient<TokenSecret>;
  readonly #cache: Informer<TokenSecret>;

  constructor(kube: KubeConnection, cache: Informer<TokenSecret>) {
    this.#client = objectClient<TokenSecret>(kube, SECRETS);
    this.#cache = cache;
  }

  static nameFor(db: Database): string {
    return `${db.metadata?.name ?? ''}-database`;
  }

  static ownerKeys(secret: TokenSecret): string[] {
    return controllerOwnerKeys('Database', secret);
  }

  async ensure(db: Database, url: string): Promise<MintedToken> {
    const namespace = db.metadata?.namespace ?? '';
    const name = TokenSecrets.nameFor(db);
    let secret = this.#cache.get(`${namespace}/${name}`);
    if (!secret) {
      try {
        secret = await this.#client.create(this.#newSecret(db, name, url));
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        secret = await this.#client.get(namespace, name);
      }
    }
    const owned = secret?.metadata?.ownerReferences?.some((ref) => ref.uid === db.metadata?.uid && ref.controller === true);
    const token = secret?.data?.DATABASE_TOKEN;
    if (!owned || !token) return { kind: 'conflict', name };
    return { kind: 'minted', name, sha256: databaseTokenSha256(Buffer.from(token, 'base64').toString('utf8')) };
  }

  /** Deletes the minted Secret of `db` if it has one: its tokens are now in the spec, and that token no longer works. */
  async removeMinted(db: Database): Promise<void> {
    const namespace = db.metadata?.namespace ?? '';
    const name = TokenSecrets.nameFor(db);
    const secret = this.#cache.get(`${namespace}/${name}`);
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
