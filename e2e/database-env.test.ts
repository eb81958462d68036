// A database linked to an app, end to end: a real cw-api, cw-operator, cw-runtime and cw-db on the run's control
// plane. The app's variable is linked through the API, the runtime binds the Database's app token to `env`, and
// the app itself runs SQL with it at the database's URL (Hrana over HTTP, `POST <url>/v2/pipeline`, as
// @libsql/client sends it): cw-db's SQL listener has a loopback address of its own, the one private address the
// runtime lets apps reach. No API answer and no custom resource holds the token; deleting the app-token Secret
// rotates it, the app gets the new one without a redeploy, and cw-db refuses the old one (tried with the official
// @libsql/client). Hostile probes: the API refuses another project's database, and a RuntimeApp manifest naming
// a database its namespace does not have is not resolved (condition DatabaseNotFound), even when another
// namespace has a ready Database of that name.
import { createHash } from 'node:crypto';
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Database } from '../src/apis/v1alpha1/database.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { loadKubeConnection, objectClient, SECRETS, type KubeObject } from '../src/kube/index.ts';
import { DATABASES, RUNTIME_APPS } from '../src/platform/resources.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { startDatabaseServer, type DatabaseServer } from './harness/database-server.ts';
import { createTestNamespace } from './harness/namespace.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, packWorker, s3Env, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const kubeconfig = inject('kubeconfig');
const conn = loadKubeConnection(kubeconfig);
const running: Service[] = [];
const clients: Client[] = [];
let db: DatabaseServer | undefined;
let api: ApiServer | undefined;
let runtime: Runtime;
let member: MemberAccount;

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'dbenv');
  // The operator below watches the project's namespace only, so its Project controller does not run.
  await createProjectNamespace(kubeconfig, member.project);
  const database = (db = await startDatabaseServer({ name: 'cw-db-env' }));
  [api, runtime] = await Promise.all([
    startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { ...s3Env(), CW_DB_URL: database.url, CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN, POD_NAMESPACE: member.project } }),
    // The runtime lets apps reach cw-db's SQL endpoint (and nothing else private).
    startRuntime('cw-runtime-dbenv', member.project, running, { CW_RUNTIME_DATABASE_URL: database.url }),
    // Usage (and so the Secret's GET) every second: a rotation is noticed within about a second.
    // A replaced app token is accepted 8 s more: long enough for the runtime's rollout, short enough to see it end.
    startOperator(member.project, running, { ...database.clientEnv, CW_DB_USAGE_REFRESH_SECONDS: '1', CW_DB_APP_TOKEN_OVERLAP_SECONDS: '8' }),
  ]);
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all([api?.stop(), db?.stop(), ...running.map((s) => s.stop(5_000))]);
});

async function call<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; text: string; body: T }> {
  if (!api) throw new Error('cw-api is not running');
  const res = await fetch(`${api.url}/v1/projects/${member.project}${path}`, {
    method,
    headers: { authorization: `Bearer ${member.token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, text, body: (text ? JSON.parse(text) : undefined) as T };
}

async function ok<T>(status: number, method: string, path: string, body?: unknown, contentType?: string): Promise<{ text: string; body: T }> {
  const res = await call<T>(method, path, body, contentType);
  expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
  return res;
}

/**
 * The app: `?sql=…` runs the statement at `env.DB_URL` with `env.DB_TOKEN` and answers cw-db's Hrana answer with
 * its status; without `sql`, the SHA-256 of its token (so the test tells which token it has without the app
 * showing it), or `none`.
 */
const SQL_WORKER = packWorker(`export default {
  async fetch(request, env) {
    const sql = new URL(request.url).searchParams.get('sql');
    if (sql === null) {
      if (!env.DB_TOKEN) return new Response('none');
      const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(env.DB_TOKEN));
      return new Response([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join(''));
    }
    const res = await fetch(new URL('v2/pipeline', env.DB_URL), {
      method: 'POST',
      headers: { authorization: 'Bearer ' + env.DB_TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ baton: null, requests: [{ type: 'execute', stmt: { sql } }, { type: 'close' }] }),
    });
    return new Response(await res.text(), { status: res.status });
  },
};
`);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hostOf = (app: string) => `${app}.${member.project}.${BASE_DOMAIN}`;
/** The digest of the token the app has, or `none`. */
const appTokenDigest = async (app: string) => (await send(runtime.port, hostOf(app))).body;

interface PipelineAnswer {
  results: ({ type: 'ok'; response: { type: string; result?: { rows: { type: string; value?: string }[][] } } } | { type: 'error'; error: { message: string } })[];
}

/** Runs `sql` from inside the app; answers the rows' values (as Hrana gives them: text), or throws with the app's answer. */
async function appQuery(app: string, sql: string): Promise<(string | undefined)[][]> {
  const res = await send(runtime.port, hostOf(app), `/?sql=${encodeURIComponent(sql)}`);
  if (res.status !== 200) throw new Error(`the app answered ${res.status}: ${res.body}`);
  const first = (JSON.parse(res.body) as PipelineAnswer).results[0];
  if (first?.type !== 'ok') throw new Error(`cw-db refused the app's statement: ${res.body}`);
  return (first.response.result?.rows ?? []).map((row) => row.map((cell) => cell.value));
}

/** The app tokens the Database controller minted, as the runtime reads them (the test is an administrator). */
async function appTokens(database = 'orders'): Promise<{ full: string }> {
  const secret = await objectClient<KubeObject & { data?: Record<string, string> }>(conn, SECRETS).get(member.project, `${database}-app-tokens`);
  return { full: Buffer.from(secret?.data?.FULL_TOKEN ?? '', 'base64').toString('utf8') };
}

function connect(url: string, authToken: string): Client {
  const client = createClient({ url, authToken });
  clients.push(client);
  return client;
}

describe('a database linked to an app', { timeout: 120_000 }, () => {
  it("binds the database's app token to env, the app runs SQL with it, nothing shows it, and its Secret's deletion rotates it", async () => {
    const { body: created } = await ok<{ database_url: string; status: string }>(201, 'POST', '/databases', { name: 'orders' });
    expect(created.status).toBe('ready');
    // The URL users are given is the endpoint apps may reach.
    expect(created.database_url.startsWith(`${db?.url ?? ''}/`)).toBe(true);
    await ok(201, 'POST', '/apps', { name: 'shop' });
    const { body: linked } = await ok<{ variable: object }>(200, 'PUT', '/apps/shop/environment/DB_TOKEN', { database: 'orders', access: 'full' });
    expect(linked.variable).toStrictEqual({ key: 'DB_TOKEN', database: 'orders', access: 'full', secret: true });
    await ok(200, 'PUT', '/apps/shop/environment/DB_URL', { value: created.database_url });
    await ok(200, 'POST', '/apps/shop/deployments', SQL_WORKER, 'application/octet-stream');

    const { full: token } = await appTokens();
    expect(token).toMatch(/^cwdb_/);
    await eventually(
      'the app has the full token',
      () => appTokenDigest('shop'),
      (digest) => digest === sha256(token),
      60_000,
    );
    // The app itself writes and reads its database, through the runtime's network filter.
    await appQuery('shop', 'CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT)');
    await appQuery('shop', "INSERT INTO orders (item) VALUES ('tea')");
    expect(await appQuery('shop', 'SELECT item FROM orders')).toEqual([['tea']]);

    // Nowhere in what the API answers, nor in the objects a tenant with kubectl reads.
    const { text: shown, body: environment } = await ok<object>(200, 'GET', '/apps/shop/environment');
    expect(environment).toStrictEqual({ environment: { DB_TOKEN: { database: 'orders', access: 'full', secret: true }, DB_URL: { value: created.database_url, secret: false } } });
    expect(shown).not.toContain(token);
    for (const path of ['/apps/shop', '/databases/orders', '/databases']) expect((await ok(200, 'GET', path)).text, path).not.toContain(token);
    const app = await objectClient<RuntimeApp>(conn, RUNTIME_APPS).get(member.project, 'shop');
    const database = await objectClient<Database>(conn, DATABASES).get(member.project, 'orders');
    expect(JSON.stringify(app)).not.toContain(token);
    expect(JSON.stringify(database)).not.toContain(token);
    expect(database?.status?.appTokenSecretName).toBe('orders-app-tokens');

    // Rotation: the Secret deleted, new tokens minted; the app gets the new one without a deploy, the old is refused.
    const generation = database?.status?.appTokenGeneration;
    await objectClient<KubeObject>(conn, SECRETS).delete(member.project, 'orders-app-tokens');
    const rotated = await eventually(
      'new app tokens',
      () => appTokens(),
      (t) => t.full.startsWith('cwdb_') && t.full !== token,
      30_000,
    );
    await eventually(
      'the app has the new token',
      () => appTokenDigest('shop'),
      (digest) => digest === sha256(rotated.full),
      30_000,
    );
    expect((await objectClient<Database>(conn, DATABASES).get(member.project, 'orders'))?.status?.appTokenGeneration).not.toBe(generation);
    expect(await appQuery('shop', 'SELECT item FROM orders')).toEqual([['tea']]);
    await expect(connect(created.database_url, token).execute('SELECT 1')).rejects.toThrow();
  });

  it("refuses another project's database through the API, and resolves no manifest's link outside its namespace", async () => {
    // Another namespace with a Database of the name asked for, as ready as the controller would make it.
    const elsewhere = await createTestNamespace(conn, 'dbenv-other');
    const databases = objectClient<Database>(conn, DATABASES);
    await databases.create({ metadata: { name: 'theirs', namespace: elsewhere }, spec: { displayName: 'theirs' } });
    const theirs = await databases.get(elsewhere, 'theirs');
    await databases.patchStatus(elsewhere, 'theirs', {
      metadata: { resourceVersion: theirs?.metadata?.resourceVersion },
      status: { appTokenSecretName: 'theirs-app-tokens', appTokenGeneration: 'feedfeedfeedfeed' },
    });

    await ok(201, 'POST', '/apps', { name: 'probe' });
    const refused = await call<{ status: number; detail: string }>('PUT', '/apps/probe/environment/DB_TOKEN', { database: 'theirs' });
    expect(refused.status).toBe(404);
    expect(refused.body.detail).toMatch(/no database theirs/i);
    await ok(200, 'POST', '/apps/probe/deployments', SQL_WORKER, 'application/octet-stream');
    await eventually(
      'the probe app is served',
      () => appTokenDigest('probe'),
      (t) => t === 'none',
      60_000,
    );

    // kubectl-style: the manifest names the database anyway. The runtime looks in the app's namespace only.
    const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
    await apps.patch(member.project, 'probe', { spec: { databaseEnvironment: { DB_TOKEN: { database: 'theirs' } } } });
    const reported = await eventually(
      'the probe app reports DatabaseNotFound',
      () => apps.get(member.project, 'probe'),
      (a) => a?.status?.conditions?.some((c) => c.type === 'Deployed' && c.status === 'False' && c.reason === 'DatabaseNotFound') === true,
      30_000,
    );
    expect(reported?.status?.conditions?.find((c) => c.type === 'Deployed')?.message).toMatch(/DB_TOKEN names Database theirs, which does not exist in the app's namespace/);
    // It keeps serving what it served, without any token.
    expect(await appTokenDigest('probe')).toBe('none');
  });

  it('binds a database as DB_URL and DB_TOKEN: the app reads and writes it, no listing shows a token, a rotation goes unnoticed, an unbind takes it away', async () => {
    const { body: created } = await ok<{ database_url: string }>(201, 'POST', '/databases', { name: 'notes' });
    await ok(201, 'POST', '/apps', { name: 'notebook' });
    await ok(200, 'PUT', '/apps/notebook/database-bindings/DB', { database: 'notes', access: 'full' });
    await ok(200, 'POST', '/apps/notebook/deployments', SQL_WORKER, 'application/octet-stream');
    const { full: token } = await appTokens('notes');
    await eventually(
      'the bound app has the token',
      () => appTokenDigest('notebook'),
      (digest) => digest === sha256(token),
      60_000,
    );
    // No URL was set by hand: the runtime gave it.
    await appQuery('notebook', 'CREATE TABLE notes (body TEXT)');
    await appQuery('notebook', "INSERT INTO notes VALUES ('first')");
    expect(await appQuery('notebook', 'SELECT body FROM notes')).toEqual([['first']]);

    const { text: listing, body: environment } = await ok<object>(200, 'GET', '/apps/notebook/environment');
    expect(environment).toStrictEqual({ environment: { DB_TOKEN: { database: 'notes', access: 'full', secret: true }, DB_URL: { database: 'notes', provides: 'url', secret: false } } });
    const { text: bindings } = await ok(200, 'GET', '/apps/notebook/database-bindings');
    for (const text of [listing, bindings, JSON.stringify(await objectClient<RuntimeApp>(conn, RUNTIME_APPS).get(member.project, 'notebook'))]) expect(text).not.toContain(token);

    // A rotation asked on the Database: the app keeps writing throughout, and gets the new token without a deploy.
    const databases = objectClient<Database>(conn, DATABASES);
    await databases.patch(member.project, 'notes', { metadata: { annotations: { 'cloudwright.dev/rotate-app-tokens': '1' } } });
    const rotated = await eventually(
      'new app tokens for notes',
      () => appTokens('notes'),
      (t) => t.full.startsWith('cwdb_') && t.full !== token,
      30_000,
    );
    let writes = 0;
    const failures: string[] = [];
    await eventually(
      'the app has the rotated token',
      async () => {
        writes += 1;
        await appQuery('notebook', `INSERT INTO notes VALUES ('during rotation ${writes}')`).catch((err: unknown) => failures.push(String(err)));
        return appTokenDigest('notebook');
      },
      (digest) => digest === sha256(rotated.full),
      30_000,
    );
    expect(failures).toEqual([]);
    expect(await appQuery('notebook', 'SELECT count(*) FROM notes')).toEqual([[String(writes + 1)]]);
    // The replaced token is refused once its overlap is over (8 s here).
    await eventually(
      'the replaced token is refused',
      () =>
        connect(created.database_url, token)
          .execute('SELECT 1')
          .then(
            () => 'accepted',
            () => 'refused',
          ),
      (answer) => answer === 'refused',
      30_000,
    );
    expect(await appQuery('notebook', 'SELECT count(*) FROM notes')).toEqual([[String(writes + 1)]]);

    await ok(204, 'DELETE', '/apps/notebook/database-bindings/DB');
    await eventually(
      'the unbound app has no token',
      () => appTokenDigest('notebook'),
      (digest) => digest === 'none',
      30_000,
    );
    await expect(appQuery('notebook', 'SELECT 1')).rejects.toThrow();
  });
});
