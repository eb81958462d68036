import { createHash } from 'node:crypto';
import type { DatabaseAccess } from '../../apis/v1alpha1/runtime-app.ts';
import { databaseTokenSha256 } from './database-token.ts';

/**
 * The keys of a Database's app-token Secret (`status.appTokenSecretName`), by the access a RuntimeApp's
 * `spec.databaseEnvironment` entry asks for. The Database controller writes them; cw-runtime reads them.
 */
export const APP_TOKEN_KEYS: Readonly<Record<DatabaseAccess, string>> = { full: 'FULL_TOKEN', 'read-only': 'READ_ONLY_TOKEN' };

/** The access of an entry that names none: the least. */
export const DEFAULT_DATABASE_ACCESS: DatabaseAccess = 'read-only';

/**
 * A digest of the two tokens' hashes (never of a token), published as the Database's `status.appTokenGeneration`
 * once cw-db accepts them: equal exactly when the tokens are, so the runtime knows both when to read the Secret
 * again and whether what it read is what cw-db accepts.
 */
export function appTokenGeneration(fullSha256: string, readOnlySha256: string): string {
  return createHash('sha256').update(`${fullSha256}:${readOnlySha256}`).digest('hex').slice(0, 16);
}

/** The hashes of a Secret's two app tokens and their generation, from `text(key)` (its decoded values); undefined when one is missing. */
export function appTokenHashes(text: (key: string) => string | undefined): { full: string; readOnly: string; generation: string } | undefined {
  const [full, readOnly] = [text(APP_TOKEN_KEYS.full), text(APP_TOKEN_KEYS['read-only'])];
  if (!full || !readOnly) return undefined;
  const hashes = { full: databaseTokenSha256(full), readOnly: databaseTokenSha256(readOnly) };
  return { ...hashes, generation: appTokenGeneration(hashes.full, hashes.readOnly) };
}
