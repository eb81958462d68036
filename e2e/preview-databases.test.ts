// Preview databases (issue 40, `previewDatabases: Fork`): a preview of an app that links a database gets its own
// copy of it, a point-in-time restore taken when the preview is created, linked under the same variable, with the
// plain variable holding the database's URL pointed at the copy. The preview reads production's rows as they were,
// its writes stay in the copy, production's later writes do not reach it, and the copy goes with the preview. A
// real cw-git, operator (local builds), cw-runtime and cw-db; SQL from inside the apps as @libsql/client sends it.
import { randomBytes } from 'node:crypto';
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AppSource } from '../src/apis/v1alpha1/app-source.ts';
import type { Database } from '../src/apis/v1alpha1/database.ts';
import type { Repository } from '../src/apis/v1alpha1/repository.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../src/conditions/index.ts';
import { loadKubeConnection, objectClient, SECRETS, type KubeObject } from '../src/kube/index.ts';
import { APP_SOURCES, DATABASES, PROJECT_LABEL, REPOSITORIES, RUNTIME_APPS } from '../src/platform/resources.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import type { RunningService } from '../git-server/serve.ts';
import { mintToken } from '../git-server/auth/index.ts';
import { createMemberAccount, createProjectNamespace } from './harness/accounts.ts';
import { startDatabaseServer, type DatabaseServer } from './harness/database-server.ts';
import { GitClient } from './harness/git-client.ts';
import { newTokenSecret, startGitService } from './harness/git-service.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const kubeconfig = inject('kubeconfig');
const conn = loadKubeConnection(kubeconfig);
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const sources = objectClient<AppSource>(conn, APP_SOURCES);
const repositories = objectClient<Repository>(conn, REPOSITORIES);
const databases = objectClient<Database>(conn, DATABASES);
const running: Service[] = [];
const clients: Client[] = [];
let project: string;
let runtime: Runtime;
let db: DatabaseServer | undefined;
let service: RunningService | undefined;
/** A token cw-git takes for pushes. */
let pushToken: string;

/** `?sql=…` runs the statement at env.DB_URL with env.DB_TOKEN and answers the rows' first column, one per line. */
const SQL_WORKER = `export default {
  async fetch(request, env) {
    const sql = new URL(request.url).searchParams.get('sql');
    if (!sql) return new Response('sql ready at ' + (env.DB_URL ? 'a URL' : 'no URL'));
    const res = await fetch(new URL('v2/pipeline', env.DB_URL + '/'), {
      method: 'POST',
      headers: { authorization: 'Bearer ' + env.DB_TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ requests: [{ type: 'execute', stmt: { sql } }, { type: 'close' }] }),
    });
    const answer = await res.json();
    const first = answer.results?.[0];
    if (first?.type !== 'ok') return new Response(JSON.stringify(answer), { status: 502 });
    return new Response((first.response.result?.rows ?? []).map((row) => row[0]?.value).join('\\n'));
  },
};
`;

const host = (app: string) => `${app}.${project}.${BASE_DOMAIN}`;

async function appQuery(app: string, sql: string): Promise<string[]> {
  const res = await send(runtime.port, host(app), `/?sql=${encodeURIComponent(sql)}`);
  if (res.status !== 200) throw new Error(`${app} answered ${res.status}: ${res.body}`);
  return res.body === '' ? [] : res.body.split('\n');
}

beforeAll(async () => {
  const member = await createMemberAccount(kubeconfig, 'pvdb');
  project = member.project;
  await createProjectNamespace(kubeconfig, project);
  const database = (db = await startDatabaseServer({ name: 'cw-db-previews' }));
  const tokenSecret = newTokenSecret();
  [service, runtime] = await Promise.all([
    startGitService({ s3: inject('s3'), bucket: inject('bucket'), tokenSecret, namespace: project, kubeconfig, roles: ['serve', 'events'], sweepInterval: '1s' }),
    startRuntime('cw-runtime-pvdb', project, running, { CW_RUNTIME_DATABASE_URL: database.url }),
    // Database usage (the restore window among it) read every second.
    startOperator(project, running, {
      ...database.clientEnv,
      CW_DB_USAGE_REFRESH_SECONDS: '1',
      CW_GIT_BUCKET: inject('bucket'),
      CW_BUILD_RUNNER: 'local',
      CW_PREVIEW_GRACE: '1s',
      CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN,
    }),
  ]);
  pushToken = mintToken({ sub: 'ada', scopes: ['write'] }, tokenSecret);
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all([service?.stop(), db?.stop(), ...running.map((s) => s.stop(5_000))]);
});

describe('preview databases', () => {
  it('gives a preview its own copy of the app’s database: production’s rows as they were, its writes its own, gone with the preview', { timeout: 180_000 }, async () => {
    // Production: a database applied as kubectl would, its rows written with the official client.
    await databases.create({ metadata: { name: 'orders', namespace: project, labels: { [PROJECT_LABEL]: project } }, spec: {} });
    const orders = await eventually(
      'the database ready',
      () => databases.get(project, 'orders'),
      (d) => d?.status?.state === 'ready' && d.status.tokenSecretName !== undefined,
      60_000,
    );
    const secret = await objectClient<KubeObject & { data?: Record<string, string> }>(conn, SECRETS).get(project, orders?.status?.tokenSecretName ?? '');
    const decode = (key: string) => Buffer.from(secret?.data?.[key] ?? '', 'base64').toString('utf8');
    const production = createClient({ url: decode('DATABASE_URL'), authToken: decode('DATABASE_TOKEN') });
    clients.push(production);
    await production.execute('CREATE TABLE items (name TEXT)');
    await production.execute("INSERT INTO items VALUES ('before the branch')");

    const url = orders?.status?.url ?? '';
    await apps.create({
      metadata: { name: 'shop', namespace: project, labels: { [PROJECT_LABEL]: project } },
      spec: { displayName: 'shop', environment: { DB_URL: url }, databaseEnvironment: { DB_TOKEN: { database: 'orders', access: 'full' } } },
    });
    await repositories.create({ metadata: { name: 'shop', namespace: project }, spec: { owner: project, name: 'shop' } });
    await eventually(
      'the repository Ready',
      () => repositories.get(project, 'shop'),
      (r) => findCondition(r?.status?.conditions, 'Ready')?.status === 'True',
    );
    await sources.create({ metadata: { name: 'shop', namespace: project }, spec: { app: 'shop', repository: { owner: project, name: 'shop' }, previewDatabases: 'Fork' } });

    const git = await GitClient.create();
    const work = await git.workdir(`shop-${randomBytes(3).toString('hex')}`);
    await git.run(['init', '-q'], { cwd: work });
    const remote = `${service?.url.replace('http://', `http://git:${pushToken}@`)}/${project}/shop`;
    await git.commit(work, 'the shop', { 'worker.js': SQL_WORKER });
    await git.run(['push', '-q', remote, 'main'], { cwd: work });
    await servedEverywhere([runtime], host('shop'), 'sql ready at a URL', 60_000);
    expect(await appQuery('shop', 'SELECT name FROM items')).toEqual(['before the branch']);

    // A database seconds old has no restore point until its first copy is in the bucket: the branch comes once cw-db
    // tells the window. The copy starts at the preview's creation, a moment after production's commits.
    await eventually(
      'the database’s restore window known',
      () => databases.get(project, 'orders'),
      (d) => d?.status?.restoreWindow !== undefined,
      30_000,
    );
    // A branch: its preview links its own copy, under the same variables.
    await git.run(['checkout', '-q', '-b', 'feature/db'], { cwd: work });
    await git.commit(work, 'on a branch', { 'README.md': 'a branch\n' });
    await git.run(['push', '-q', remote, 'feature/db'], { cwd: work });
    const copy = await eventually(
      'the preview’s copy ready',
      () => databases.get(project, 'orders--feature-db--shop'),
      (d) => d?.status?.state === 'ready',
      60_000,
    );
    expect(copy?.spec.restoreFrom?.database).toBe('orders');
    const preview = await eventually(
      'the preview linked to its copy, its URL variable given the copy’s',
      () => apps.get(project, 'feature-db--shop'),
      (a) => a?.spec.environment?.DB_URL === copy?.status?.url,
      30_000,
    );
    expect(preview?.spec.databaseEnvironment).toEqual({ DB_TOKEN: { database: 'orders--feature-db--shop', access: 'full' } });
    const source = await eventually(
      'the source lists the copy',
      () => sources.get(project, 'shop'),
      (s) => s?.status?.previews?.[0]?.databases !== undefined,
    );
    expect(source?.status?.previews?.[0]).toMatchObject({ branch: 'feature/db', databases: ['orders--feature-db--shop'] });

    // The preview reads production's rows as they were; each side's writes stay its own.
    await eventually(
      'the preview reads the copy',
      () => appQuery('feature-db--shop', 'SELECT name FROM items').catch((err: Error) => [err.message]),
      (rows) => rows.length === 1 && rows[0] === 'before the branch',
      30_000,
    );
    await appQuery('feature-db--shop', "INSERT INTO items VALUES ('written by the preview') RETURNING name");
    await production.execute("INSERT INTO items VALUES ('written by production')");
    expect(await appQuery('feature-db--shop', 'SELECT name FROM items ORDER BY rowid')).toEqual(['before the branch', 'written by the preview']);
    expect((await production.execute('SELECT name FROM items ORDER BY rowid')).rows.map((r) => r.name)).toEqual(['before the branch', 'written by production']);
    expect(await appQuery('shop', 'SELECT name FROM items ORDER BY rowid')).toEqual(['before the branch', 'written by production']);

    // Deleting the branch deletes the preview (after the 1 s grace here), and its copy with it.
    await git.run(['push', '-q', remote, ':feature/db'], { cwd: work });
    await eventually(
      'the copy gone',
      () => databases.get(project, 'orders--feature-db--shop'),
      (d) => d === undefined,
      60_000,
    );
    expect(await databases.get(project, 'orders')).toBeDefined();
  });
});
