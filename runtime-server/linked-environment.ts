import type { Database } from '../src/apis/v1alpha1/database.ts';
import type { DatabaseEnvironmentEntry, RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { ServingPlan } from '../src/runtime-contract/releases.ts';
import type { AppTokenReader } from './app-token-reader.ts';
import { linkedValues, linkSignature, type LinkProblem } from './database-links.ts';
import { linkedEntries } from './desired.ts';

/** Where an app's database variables get their values: the Databases and their app-token Secrets. */
export interface DatabaseSources {
  readonly source: { get(key: string): Database | undefined };
  readonly tokens: AppTokenReader;
  /** The SQL endpoint apps reach (CW_RUNTIME_DATABASE_URL): a variable with `provides: url` is `{endpoint}/v1/{database id}`. */
  readonly endpoint?: string;
}

/** A release's linked variables with their signature (`linkSignature`), or why they cannot be had. */
export type Linked = { env: Record<string, string>; signature: string } | { problem: LinkProblem };

/** The values of one release's linked variables and their signature, or why they cannot be had. */
export async function linkedEnvironment(databases: DatabaseSources | undefined, entries: Readonly<Record<string, DatabaseEnvironmentEntry>> | undefined, namespace: string): Promise<Linked> {
  if (!entries || Object.keys(entries).length === 0) return { env: {}, signature: '' };
  if (!databases) return { problem: { reason: 'DatabaseNotFound', message: 'This runtime does not resolve database variables.' } };
  const values = linkedValues(entries, (name) => databases.source.get(`${namespace}/${name}`), databases.endpoint);
  if (!Array.isArray(values)) return { problem: values };
  const read = await databases.tokens.read(namespace, values);
  return 'problem' in read ? read : { env: read.env, signature: linkSignature(values) };
}

/** The linked variables of what the plan serves: the (stable) release's and, in a split, the new release's. */
export async function linkedOfPlan(databases: DatabaseSources | undefined, app: RuntimeApp, plan: ServingPlan, namespace: string): Promise<{ env: Linked; canary: Linked }> {
  const entries = linkedEntries(app, plan);
  const [env, canary] = await Promise.all([linkedEnvironment(databases, entries.serving, namespace), linkedEnvironment(databases, entries.canary, namespace)]);
  return { env, canary };
}

/** The variables of both releases of a plan as one: the first problem, else both signatures. */
export function bothLinked(serving: Linked, canary: Linked): Linked {
  if ('problem' in serving) return serving;
  if ('problem' in canary) return canary;
  return { env: serving.env, signature: canary.signature ? `${serving.signature}|${canary.signature}` : serving.signature };
}

/**
 * Whether any release the app may serve links a variable to the Database `name` (of its namespace): the spec's, the
 * stable release of a rollout, or the release held while migrations are pending (`status.served`). A change of that
 * Database (its tokens appearing or rotating) re-checks such apps.
 */
export function linksDatabase(app: RuntimeApp, name: string): boolean {
  return [app.spec.databaseEnvironment, app.status?.rollout?.stable.databaseEnvironment, app.status?.served?.databaseEnvironment].some((entries) =>
    Object.values(entries ?? {}).some((entry) => entry.database === name),
  );
}
