import type { Database } from '../src/apis/v1alpha1/database.ts';
import type { DatabaseEnvironmentEntry } from '../src/apis/v1alpha1/runtime-app.ts';
import { APP_TOKEN_KEYS, DEFAULT_DATABASE_ACCESS } from '../src/platform/databases/app-tokens.ts';

/** Where one linked variable's value is: a key of a Database's app-token Secret, at a token generation. */
export interface LinkedValue {
  readonly variable: string;
  readonly database: string;
  /** The Database's uid: the Secret must be owned by it. */
  readonly uid: string;
  readonly secret: string;
  readonly key: string;
  readonly generation: string;
}

/** Why an app's linked variables cannot be resolved (RuntimeApp reasons `DatabaseNotFound`, `DatabaseNotReady`). */
export interface LinkProblem {
  readonly reason: 'DatabaseNotFound' | 'DatabaseNotReady';
  /** Stable (no times, no token): it becomes the app's condition message. */
  readonly message: string;
}

/**
 * Where each of an app's `spec.databaseEnvironment` variables is to be read, from the Databases of its own
 * namespace only (`database(name)` looks there): a name is never resolved in another project. Pure; the
 * first problem by variable name wins, so the message is stable.
 */
export function linkedValues(entries: Readonly<Record<string, DatabaseEnvironmentEntry>> | undefined, database: (name: string) => Database | undefined): LinkedValue[] | LinkProblem {
  const values: LinkedValue[] = [];
  for (const variable of Object.keys(entries ?? {}).sort()) {
    const entry = entries?.[variable];
    if (!entry) continue;
    const db = database(entry.database);
    if (!db?.metadata?.uid || db.metadata.deletionTimestamp) {
      return { reason: 'DatabaseNotFound', message: `Variable ${variable} names Database ${entry.database}, which does not exist in the app's namespace.` };
    }
    const secret = db.status?.appTokenSecretName;
    const generation = db.status?.appTokenGeneration;
    if (!secret || !generation) {
      return { reason: 'DatabaseNotReady', message: `Variable ${variable} names Database ${entry.database}, which has no app tokens yet (it is not ready).` };
    }
    values.push({ variable, database: entry.database, uid: db.metadata.uid, secret, key: APP_TOKEN_KEYS[entry.access ?? DEFAULT_DATABASE_ACCESS], generation });
  }
  return values;
}

/** What must change for linked values to be read again: the generations of the tokens, per variable. */
export function linkSignature(values: readonly LinkedValue[]): string {
  return values.map((v) => `${v.variable}=${v.database}/${v.key}@${v.generation}`).join(' ');
}
