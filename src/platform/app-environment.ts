import type { Database } from '../apis/v1alpha1/database.ts';
import { MAX_DATABASE_ENVIRONMENT_KEYS, MAX_ENVIRONMENT_BYTES, MAX_ENVIRONMENT_KEYS, type DatabaseAccess } from '../apis/v1alpha1/runtime-app.ts';

export { MAX_ENVIRONMENT_BYTES, MAX_ENVIRONMENT_KEYS };
import { ASSETS_BINDING } from '../app-artifacts/compatibility.ts';
import type { AppStore } from './app-store.ts';
import { DEFAULT_DATABASE_ACCESS } from './databases/app-tokens.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.ts';

/** The spec's wording for `secret: true` (Errors table): a typed value is plain; a secret comes from a database link. */
export const SECRET_VALUES_DISABLED = 'Secret app environment values are not enabled; only plain values are stored. Send "secret": false, or link a database token with {"database": "<name>"}.';

/** One variable as the REST API shows it: a plain value, or a link to a database's token (its value never shown). */
export type VariableView = { key: string; value: string; secret: false } | { key: string; database: string; access: DatabaseAccess; secret: true };
/** A variable as GET shows it: a plain value, a database's token (never its value), or a database's URL (a binding's `_URL`). */
type ShownValue = { value: string; secret: false } | { database: string; access: DatabaseAccess; secret: true } | { database: string; provides: 'url'; secret: false };

/**
 * The environment of an app: plain values (`RuntimeApp.spec.environment`) and variables linked to a database's
 * app token (`spec.databaseEnvironment`, whose value the runtime reads from the Database's Secret: the API never
 * sees it). Read from the cache, written with optimistic concurrency. A change reaches the runtime as a new
 * rollout of the active build.
 */
export class AppEnvironment {
  readonly #store: AppStore;
  readonly #database: (project: string, name: string) => Database | undefined;

  /** `database` looks a Database up in the project (the cache), for links. */
  constructor(store: AppStore, database: (project: string, name: string) => Database | undefined = () => undefined) {
    this.#store = store;
    this.#database = database;
  }

  /** Every variable, by name (sorted); linked ones without any value. @throws NotFoundError */
  get(project: string, appId: string): Record<string, ShownValue> {
    const { environment = {}, databaseEnvironment = {} } = this.#store.cached(project, appId).spec;
    const shown: [string, ShownValue][] = [
      ...Object.entries(environment).map(([key, value]): [string, ShownValue] => [key, { value, secret: false }]),
      ...Object.entries(databaseEnvironment).map(([key, link]): [string, ShownValue] => [
        key,
        link.provides === 'url' ? { database: link.database, provides: 'url', secret: false } : { database: link.database, access: link.access ?? DEFAULT_DATABASE_ACCESS, secret: true },
      ]),
    ];
    return Object.fromEntries(shown.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /**
   * Creates or replaces `key` as a link to `database`'s app token (`access`, read-only by default), replacing a
   * plain value of that name. Linking as it is linked writes nothing.
   * @throws BadRequestError for the reserved name `ASSETS`; NotFoundError (the app, or no such database in the
   *   project); ConflictError for a database being deleted, or past {@link MAX_DATABASE_ENVIRONMENT_KEYS}
   */
  async link(project: string, appId: string, key: string, database: string, access: DatabaseAccess = DEFAULT_DATABASE_ACCESS): Promise<VariableView> {
    checkName(key);
    requireDatabase(this.#database(project, database), project, database);
    await this.#store.update(project, appId, ({ spec }) => {
      const links = spec.databaseEnvironment ?? {};
      const current = links[key];
      const same = current?.database === database && current.provides !== 'url' && (current.access ?? DEFAULT_DATABASE_ACCESS) === access;
      if (same && !Object.hasOwn(spec.environment ?? {}, key)) return undefined;
      if (!current && Object.keys(links).length >= MAX_DATABASE_ENVIRONMENT_KEYS) {
        throw new ConflictError(`App ${appId} already has ${MAX_DATABASE_ENVIRONMENT_KEYS} database variables, the most an app may have; delete one first.`);
      }
      const { environment: plain, ...rest } = spec;
      const left = Object.entries(plain ?? {}).filter(([k]) => k !== key);
      return { ...rest, ...(left.length > 0 ? { environment: Object.fromEntries(left) } : {}), databaseEnvironment: { ...links, [key]: { database, access } } };
    });
    return { key, database, access, secret: true };
  }

  /**
   * Creates or replaces a variable. Setting the value it has writes nothing.
   * @throws BadRequestError for `secret: true` or the reserved name `ASSETS`; NotFoundError; ConflictError
   *   past {@link MAX_ENVIRONMENT_KEYS} or {@link MAX_ENVIRONMENT_BYTES}
   */
  async set(project: string, appId: string, key: string, value: string, secret: boolean): Promise<VariableView> {
    if (secret) throw new BadRequestError(SECRET_VALUES_DISABLED);
    checkName(key);
    await this.#store.update(project, appId, ({ spec }) => {
      const environment = spec.environment ?? {};
      const exists = Object.hasOwn(environment, key);
      const linked = Object.hasOwn(spec.databaseEnvironment ?? {}, key);
      if (exists && environment[key] === value && !linked) return undefined;
      if (!exists && Object.keys(environment).length >= MAX_ENVIRONMENT_KEYS) {
        throw new ConflictError(`App ${appId} already has ${MAX_ENVIRONMENT_KEYS} environment variables, the most an app may have; delete one first.`);
      }
      const next = Object.fromEntries([...Object.entries(environment).filter(([k]) => k !== key), [key, value]]);
      const bytes = environmentBytes(next);
      // The RuntimeApp CRD holds every app to the same bound, however written: no stored environment is over it.
      if (bytes > MAX_ENVIRONMENT_BYTES) {
        throw new ConflictError(
          `App ${appId}'s environment would take ${bytes} bytes, more than the ${MAX_ENVIRONMENT_BYTES} an app may have (names and values, UTF-8); shorten or delete variables first.`,
        );
      }
      // A plain value replaces a link of that name (a name is in one map only).
      const { databaseEnvironment: links, ...rest } = spec;
      const otherLinks = Object.entries(links ?? {}).filter(([k]) => k !== key);
      return { ...rest, environment: next, ...(otherLinks.length > 0 ? { databaseEnvironment: Object.fromEntries(otherLinks) } : {}) };
    });
    return { key, value, secret: false };
  }

  /** Removes a plain or a linked variable. @throws NotFoundError when the app or the variable does not exist */
  async delete(project: string, appId: string, key: string): Promise<void> {
    await this.#store.update(project, appId, ({ spec }) => {
      const { environment = {}, databaseEnvironment = {}, ...rest } = spec;
      if (!Object.hasOwn(environment, key) && !Object.hasOwn(databaseEnvironment, key)) throw new NotFoundError(`App ${appId} has no environment variable ${key}.`);
      const plain = Object.entries(environment).filter(([k]) => k !== key);
      const links = Object.entries(databaseEnvironment).filter(([k]) => k !== key);
      return { ...rest, ...(plain.length > 0 ? { environment: Object.fromEntries(plain) } : {}), ...(links.length > 0 ? { databaseEnvironment: Object.fromEntries(links) } : {}) };
    });
  }
}

/** @throws NotFoundError when the project has no such database; ConflictError when it is being deleted */
export function requireDatabase(db: Database | undefined, project: string, database: string): void {
  if (!db) throw new NotFoundError(`No database ${database} in project ${project}.`);
  if (db.metadata?.deletionTimestamp) throw new ConflictError(`Database ${database} is being deleted.`);
}

/** @throws BadRequestError for the reserved name `ASSETS` */
function checkName(key: string): void {
  if (key === ASSETS_BINDING) throw new BadRequestError(`${ASSETS_BINDING} is reserved: it is the binding of an app's static assets; choose another name.`);
}

/** UTF-8 bytes of every name and value. */
function environmentBytes(environment: Record<string, string>): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(environment)) bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  return bytes;
}
