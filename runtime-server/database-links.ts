import type { Database } from '../src/apis/v1alpha1/database.ts';
import type { DatabaseEnvironmentEntry } from '../src/apis/v1alpha1/runtime-app.ts';
import { APP_TOKEN_KEYS, DEFAULT_DATABASE_ACCESS } from '../src/platform/databases/app-tokens.ts';

/** Where one linked variable's value is: a key of a Database's app-token Secret at a token generation, or the Database's URL. */
export type LinkedValue = LinkedToken | LinkedUrl;

export interface LinkedToken {
  readonly kind: 'token';
  readonly variable: string;
  readonly database: string;
  /** The Database's uid: the Secret must be owned by it. */
  readonly uid: string;
  readonly secret: string;
  readonly key: string;
  readonly generation: string;
}

/** The URL is not secret: it is known from the Database's status and the runtime's endpoint, no Secret is read. */
export interface LinkedUrl {
  readonly kind: 'url';
  readonly variable: string;
  readonly database: string;
  readonly url: string;
}

/** Why an app's linked variables cannot be resolved (RuntimeApp reasons `DatabaseNotFound`, `DatabaseNotReady`). */
export interface LinkProblem {
  readonly reason: 'DatabaseNotFound' | 'DatabaseNotReady';
  /** Stable (no times, no token): it becomes the app's condition message. */
  readonly message: string;
}

/**
 * Where each of an app's `spec.databaseEnvironment` variables is to be read, from the Databases of its own
 * namespace only (`database(name)` looks there): a name is never resolved in another project. A URL is the
 * runtime's SQL endpoint (`endpoint`, the address apps may reach) with the database's id, else the Database's
 * public URL. Pure; the first problem by variable name wins, so the message is stable.
 */
export function linkedValues(
  entries: Readonly<Record<string, DatabaseEnvironmentEntry>> | undefined,
  database: (name: string) => Database | undefined,
  endpoint?: string,
): LinkedValue[] | LinkProblem {
  const values: LinkedValue[] = [];
  for (const variable of Object.keys(entries ?? {}).sort()) {
    const entry = entries?.[variable];
    if (!entry) continue;
    const db = database(entry.database);
    if (!db?.metadata?.uid || db.metadata.deletionTimestamp) {
      return { reason: 'DatabaseNotFound', message: `Variable ${variable} names Database ${entry.database}, which does not exist in the app's namespace.` };
    }
    if (entry.provides === 'url') {
      const url = databaseUrl(db, endpoint);
      if (!url) return { reason: 'DatabaseNotReady', message: `Variable ${variable} names Database ${entry.database}, which has no URL yet (it is not ready).` };
      values.push({ kind: 'url', variable, database: entry.database, url });
      continue;
    }
    const secret = db.status?.appTokenSecretName;
    const generation = db.status?.appTokenGeneration;
    if (!secret || !generation) {
      return { reason: 'DatabaseNotReady', message: `Variable ${variable} names Database ${entry.database}, which has no app tokens yet (it is not ready).` };
    }
    values.push({ kind: 'token', variable, database: entry.database, uid: db.metadata.uid, secret, key: APP_TOKEN_KEYS[entry.access ?? DEFAULT_DATABASE_ACCESS], generation });
  }
  return values;
}

function databaseUrl(db: Database, endpoint: string | undefined): string | undefined {
  const id = db.status?.databaseId;
  if (endpoint && id) return `${endpoint.replace(/\/+$/, '')}/v1/${id}`;
  return db.status?.url;
}

/** What must change for linked values to be read again: the generations of the tokens, per variable. */
export function linkSignature(values: readonly LinkedValue[]): string {
  return values.map((v) => (v.kind === 'url' ? `${v.variable}=${v.url}` : `${v.variable}=${v.database}/${v.key}@${v.generation}`)).join(' ');
}
