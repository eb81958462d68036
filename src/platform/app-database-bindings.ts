import type { Database } from '../apis/v1alpha1/database.ts';
import { MAX_DATABASE_ENVIRONMENT_KEYS, type DatabaseAccess, type DatabaseEnvironmentEntry, type RuntimeAppSpec } from '../apis/v1alpha1/runtime-app.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import type { AppStore } from './app-store.ts';
import { requireDatabase } from './app-environment.ts';
import { DEFAULT_DATABASE_ACCESS } from './databases/app-tokens.ts';

/** The binding name when none is given: `DATABASE_URL` and `DATABASE_TOKEN`, as Turso's and Vercel's integrations name them. */
export const DEFAULT_BINDING = 'DATABASE';

/** One binding as the REST API shows it: which database, how much its token may do, and the variables the app reads. */
export interface BindingView {
  name: string;
  database: string;
  access: DatabaseAccess;
  variables: { url: string; token: string };
}

const urlVariable = (name: string) => `${name}_URL`;
const tokenVariable = (name: string) => `${name}_TOKEN`;

/**
 * An app's database bindings: a binding `DB` of database `orders` is the pair of `spec.databaseEnvironment`
 * entries `DB_URL: {database: orders, provides: url}` and `DB_TOKEN: {database: orders, access}`, which the
 * runtime resolves to the URL apps reach the database at and to its app token (minted and rotated by the
 * platform). So a manifest written with kubectl and one written here are the same thing; the API stores no
 * token and shows none.
 */
export class AppDatabaseBindings {
  readonly #store: AppStore;
  readonly #database: (project: string, name: string) => Database | undefined;

  constructor(store: AppStore, database: (project: string, name: string) => Database | undefined) {
    this.#store = store;
    this.#database = database;
  }

  /** The app's bindings, by name. @throws NotFoundError */
  list(project: string, appId: string): BindingView[] {
    return bindingsOf(this.#store.cached(project, appId).spec.databaseEnvironment ?? {});
  }

  /**
   * Binds `database` as `name`, replacing what the two variables were (plain values, links, another binding of
   * that name). Binding as it is bound writes nothing.
   * @throws NotFoundError (the app, or no such database in the project); ConflictError for a database being
   *   deleted, or past {@link MAX_DATABASE_ENVIRONMENT_KEYS} database variables
   */
  async bind(project: string, appId: string, name: string, database: string, access: DatabaseAccess = DEFAULT_DATABASE_ACCESS): Promise<BindingView> {
    requireDatabase(this.#database(project, database), project, database);
    const [url, token] = [urlVariable(name), tokenVariable(name)];
    const wanted: Record<string, DatabaseEnvironmentEntry> = { [url]: { database, provides: 'url' }, [token]: { database, access } };
    await this.#store.update(project, appId, ({ spec }) => {
      const links = spec.databaseEnvironment ?? {};
      const same = (key: string) => JSON.stringify(links[key]) === JSON.stringify(wanted[key]);
      const plain = Object.entries(spec.environment ?? {}).filter(([k]) => k !== url && k !== token);
      if (same(url) && same(token) && plain.length === Object.keys(spec.environment ?? {}).length) return undefined;
      const next = { ...links, ...wanted };
      if (Object.keys(next).length > MAX_DATABASE_ENVIRONMENT_KEYS) {
        throw new ConflictError(`App ${appId} would have more than ${MAX_DATABASE_ENVIRONMENT_KEYS} database variables (a binding takes two); remove a binding or a linked variable first.`);
      }
      return withMaps(spec, plain, next);
    });
    return { name, database, access, variables: { url, token } };
  }

  /** Removes binding `name` (both its variables). @throws NotFoundError when the app or the binding does not exist */
  async unbind(project: string, appId: string, name: string): Promise<void> {
    await this.#store.update(project, appId, ({ spec }) => {
      const links = spec.databaseEnvironment ?? {};
      if (!bindingsOf(links).some((b) => b.name === name)) throw new NotFoundError(`App ${appId} has no database binding ${name}.`);
      const left = Object.entries(links).filter(([k]) => k !== urlVariable(name) && k !== tokenVariable(name));
      return withMaps(spec, Object.entries(spec.environment ?? {}), Object.fromEntries(left));
    });
  }
}

/** The spec with these plain variables and database variables, an empty map left out (as the other writers do). */
function withMaps(spec: RuntimeAppSpec, plain: [string, string][], links: Record<string, DatabaseEnvironmentEntry>): RuntimeAppSpec {
  const { environment: _plain, databaseEnvironment: _links, ...rest } = spec;
  return { ...rest, ...(plain.length > 0 ? { environment: Object.fromEntries(plain) } : {}), ...(Object.keys(links).length > 0 ? { databaseEnvironment: links } : {}) };
}

/** The bindings among database variables: each `<name>_TOKEN` with a `<name>_URL` of the same database, by name. */
export function bindingsOf(links: Readonly<Record<string, DatabaseEnvironmentEntry>>): BindingView[] {
  const bindings: BindingView[] = [];
  for (const [key, entry] of Object.entries(links)) {
    if (!key.endsWith('_TOKEN') || entry.provides === 'url') continue;
    const name = key.slice(0, -'_TOKEN'.length);
    const url = links[urlVariable(name)];
    if (url?.provides !== 'url' || url.database !== entry.database) continue;
    bindings.push({ name, database: entry.database, access: entry.access ?? DEFAULT_DATABASE_ACCESS, variables: { url: urlVariable(name), token: key } });
  }
  return bindings.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
