// A database linked to an app, end to end: a real cw-api, cw-operator, cw-runtime and cw-db on the run's control
// plane. The app's variable is linked through the API, the runtime binds the Database's app token to `env`, and
// that token works with the official @libsql/client; no API answer and no custom resource holds the token;
// deleting the app-token Secret rotates it, the app gets the new one without a redeploy, and cw-db refuses the
// old one. Hostile probes: the API refuses another project's database, and a RuntimeApp manifest naming a
// database its namespace does not have is not resolved (condition DatabaseNotFound), even when another
// namespace has a ready Database of that name. workerd's network filter refuses loopback addresses (the local
// cw-db's), so the app answers its token and this test runs the SQL with it, as the app would in a cluster
// through cw-db's public URL.
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Database } from '../src/apis/v1alpha1/database.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { loadKubeConnection, objectClient, SECRETS, type KubeObject } from '../src/kube/index.ts';
import { DATABASES, RUNTIME_APPS } from '../src/platform/resources.ts';
import { send } from '../src/workerd/testing/http.ts';
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
  db = await startDatabaseServer({ name: 'cw-db-env' });
  [api, runtime] = await Promise.all([
    startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { ...s3Env(), CW_DB_URL: db.url, CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN, POD_NAMESPACE: member.project } }),
    startRuntime('cw-runtime-dbenv', member.project, running),
    // Usage (and so the Secret's GET) every second: a rotation is noticed within about a second.
    startOperator(member.project, running, { ...db.clientEnv, CW_DB_USAGE_REFRESH_SECONDS: '1' }),
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

/** What the app answers: its `env.DB_TOKEN` (the token it was given), or `none`. */
const TOKEN_WORKER = packWorker("export default { fetch(request, env) { return new Response(env.DB_TOKEN ?? 'none'); } };\n");

const appToken = async (app: string) => (await send(runtime.port, `${app}.${member.project}.${BASE_DOMAIN}`)).body;

function connect(url: string, authToken: string): Client {
  const client = createClient({ url, authToken });
  clients.push(client);
  return client;
}

describe('a database linked to an app', { timeout: 120_000 }, () => {
  it("binds the database's app token to env, shows it nowhere, and rotates it when its Secret is deleted", async () => {
    const { body: created } = await ok<{ database_url: string; status: string }>(201, 'POST', '/databases', { name: 'orders' });
    expect(created.status).toBe('ready');
    await ok(201, 'POST', '/apps', { name: 'shop' });
    const { body: linked } = await ok<{ variable: object }>(200, 'PUT', '/apps/shop/environment/DB_TOKEN', { database: 'orders', access: 'full' });
    expect(linked.variable).toStrictEqual({ key: 'DB_TOKEN', database: 'orders', access: 'full', secret: true });
    await ok(200, 'POST', '/apps/shop/deployments', TOKEN_WORKER, 'application/octet-stream');

    const token = await eventually(
      'the app has its token',
      () => appToken('shop'),
      (t) => t.startsWith('cwdb_'),
      60_000,
    );
    // The full token reads and writes, with the official client, at the database's URL.
    const client = connect(created.database_url, token);
    await client.execute('CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT)');
    await client.execute({ sql: 'INSERT INTO orders (item) VALUES (?)', args: ['tea'] });
    expect((await client.execute('SELECT item FROM orders')).rows.map((r) => r.item)).toEqual(['tea']);

    // Nowhere in what the API answers, nor in the objects a tenant with kubectl reads.
    const { text: shown, body: environment } = await ok<object>(200, 'GET', '/apps/shop/environment');
    expect(environment).toStrictEqual({ environment: { DB_TOKEN: { database: 'orders', access: 'full', secret: true } } });
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
      'the app has a new token',
      () => appToken('shop'),
      (t) => t.startsWith('cwdb_') && t !== token,
      30_000,
    );
    expect((await objectClient<Database>(conn, DATABASES).get(member.project, 'orders'))?.status?.appTokenGeneration).not.toBe(generation);
    expect((await connect(created.database_url, rotated).execute('SELECT item FROM orders')).rows.map((r) => r.item)).toEqual(['tea']);
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
    await ok(200, 'POST', '/apps/probe/deployments', TOKEN_WORKER, 'application/octet-stream');
    await eventually(
      'the probe app is served',
      () => appToken('probe'),
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
    expect(await appToken('probe')).toBe('none');
  });
});
