import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import { objectClient, SECRETS, secretText, type KubeConnection, type ObjectClient, type SecretObject } from '../../../src/kube/index.ts';
import { APP_TOKEN_KEYS, appTokenHashes } from '../../../src/platform/databases/app-tokens.ts';
import { generateDatabaseToken } from '../../../src/platform/databases/database-token.ts';
import { ensureOwnedSecret } from './owned-secret.ts';

/** The app tokens' hashes and a generation that changes with them, or why there are none. */
export type AppTokens = { kind: 'minted'; name: string; full: string; readOnly: string; generation: string } | { kind: 'conflict' | 'forbidden'; name: string };

/**
 * The tokens runtime apps get through `spec.databaseEnvironment`: one full, one read-only, minted once into
 * `<database>-app-tokens` for every Database (API-made or kubectl-made), owned by it. The engine accepts their
 * hashes besides `spec.tokens`; the runtime reads the Secret when the generation in the Database's status
 * changes. Deleting the Secret rotates both: the next reconcile mints new ones and the old stop working.
 * Read with a GET, like the minted token's Secret (token-secret.ts), so a deletion is noticed at the next
 * reconcile (its usage refresh, every 30 s by default).
 */
export class AppTokenSecrets {
  readonly #client: ObjectClient<SecretObject>;

  constructor(kube: KubeConnection) {
    this.#client = objectClient<SecretObject>(kube, SECRETS);
  }

  static nameFor(db: Database): string {
    return `${db.metadata?.name ?? ''}-app-tokens`;
  }

  async ensure(db: Database): Promise<AppTokens> {
    const name = AppTokenSecrets.nameFor(db);
    const found = await ensureOwnedSecret(this.#client, db, name, () => ({ [APP_TOKEN_KEYS.full]: generateDatabaseToken(), [APP_TOKEN_KEYS['read-only']]: generateDatabaseToken() }));
    if (found.kind === 'forbidden') return { kind: 'forbidden', name };
    const hashes = found.kind === 'owned' ? appTokenHashes((key) => secretText(found.secret, key)) : undefined;
    if (!hashes) return { kind: 'conflict', name };
    return { kind: 'minted', name, ...hashes };
  }
}
