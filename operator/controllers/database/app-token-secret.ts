import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import { objectClient, SECRETS, type KubeConnection, type ObjectClient } from '../../../src/kube/index.ts';
import { APP_TOKEN_KEYS, appTokenGeneration } from '../../../src/platform/databases/app-tokens.ts';
import { databaseTokenSha256, generateDatabaseToken } from '../../../src/platform/databases/database-token.ts';
import { ensureOwnedSecret, secretText, type TokenSecret } from './owned-secret.ts';

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
  readonly #client: ObjectClient<TokenSecret>;

  constructor(kube: KubeConnection) {
    this.#client = objectClient<TokenSecret>(kube, SECRETS);
  }

  static nameFor(db: Database): string {
    return `${db.metadata?.name ?? ''}-app-tokens`;
  }

  async ensure(db: Database): Promise<AppTokens> {
    const name = AppTokenSecrets.nameFor(db);
    const found = await ensureOwnedSecret(this.#client, db, name, () => ({ [APP_TOKEN_KEYS.full]: generateDatabaseToken(), [APP_TOKEN_KEYS['read-only']]: generateDatabaseToken() }));
    if (found.kind === 'forbidden') return { kind: 'forbidden', name };
    const full = found.kind === 'owned' ? secretText(found.secret, APP_TOKEN_KEYS.full) : undefined;
    const readOnly = found.kind === 'owned' ? secretText(found.secret, APP_TOKEN_KEYS['read-only']) : undefined;
    if (!full || !readOnly) return { kind: 'conflict', name };
    const [fullHash, readOnlyHash] = [databaseTokenSha256(full), databaseTokenSha256(readOnly)];
    return { kind: 'minted', name, full: fullHash, readOnly: readOnlyHash, generation: appTokenGeneration(fullHash, readOnlyHash) };
  }
}
