import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import { objectClient, SECRETS, secretText, type KubeConnection, type ObjectClient, type SecretObject } from '../../../src/kube/index.ts';
import { APP_TOKEN_KEYS, appTokenHashes } from '../../../src/platform/databases/app-tokens.ts';
import { generateDatabaseToken } from '../../../src/platform/databases/database-token.ts';
import { mintedAnnotations, previousTokens, rotatedAnnotations, rotationDue, type RotationPolicy } from './app-token-rotation.ts';
import { ensureOwnedSecret } from './owned-secret.ts';

/**
 * The app tokens' hashes and a generation that changes with them (with the replaced ones' while still accepted,
 * and why they were just replaced), or why there are none.
 */
export type AppTokens =
  | {
      kind: 'minted';
      name: string;
      full: string;
      readOnly: string;
      generation: string;
      previous?: { full: string; readOnly: string; until: string };
      rotated?: 'period' | 'request';
    }
  | { kind: 'conflict' | 'forbidden'; name: string };

const mint = () => ({ [APP_TOKEN_KEYS.full]: generateDatabaseToken(), [APP_TOKEN_KEYS['read-only']]: generateDatabaseToken() });

/**
 * The tokens runtime apps get through `spec.databaseEnvironment`: one full, one read-only, minted into
 * `<database>-app-tokens` for every Database (API-made or kubectl-made), owned by it. The engine accepts their
 * hashes besides `spec.tokens`; the runtime reads the Secret when the generation in the Database's status
 * changes. They are replaced when the policy's period is over or a rotation is asked on the Database, and the
 * replaced ones are accepted for the policy's overlap, so apps never see a refusal. Deleting the Secret revokes
 * both at once: the next reconcile mints new ones and the old stop working. Read with a GET, like the minted
 * token's Secret (token-secret.ts), so a deletion is noticed at the next reconcile (its usage refresh, every
 * 30 s by default).
 */
export class AppTokenSecrets {
  readonly #client: ObjectClient<SecretObject>;
  readonly #policy: RotationPolicy;

  constructor(kube: KubeConnection, policy: RotationPolicy) {
    this.#client = objectClient<SecretObject>(kube, SECRETS);
    this.#policy = policy;
  }

  static nameFor(db: Database): string {
    return `${db.metadata?.name ?? ''}-app-tokens`;
  }

  async ensure(db: Database, now: Date): Promise<AppTokens> {
    const name = AppTokenSecrets.nameFor(db);
    // Minted now, and for any rotation already asked on the Database: a new set needs no rotating.
    const found = await ensureOwnedSecret(this.#client, db, name, mint, () => mintedAnnotations(db, now));
    if (found.kind === 'forbidden') return { kind: 'forbidden', name };
    let secret = found.kind === 'owned' ? found.secret : undefined;
    let hashes = secret && appTokenHashes((key) => secretText(secret, key));
    if (!secret || !hashes) return { kind: 'conflict', name };
    const rotated = rotationDue(secret, db, this.#policy, now);
    if (rotated) {
      // The resourceVersion makes this a compare-and-swap: two reconciles never both rotate (the loser retries).
      const data = Object.fromEntries(Object.entries(mint()).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));
      secret = await this.#client.replace({ ...secret, metadata: { ...secret.metadata, annotations: rotatedAnnotations(secret, db, hashes, this.#policy, now) }, data });
      hashes = appTokenHashes((key) => secretText(secret, key));
      if (!hashes) return { kind: 'conflict', name };
    }
    const previous = previousTokens(secret, now);
    return { kind: 'minted', name, ...hashes, ...(previous ? { previous } : {}), ...(rotated ? { rotated } : {}) };
  }
}
