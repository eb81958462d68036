// Migrations on deploy, end to end: a real cw-api, cw-operator, cw-runtime and cw-db on the run's control plane.
// An artifact's cloudwright.json names its migrations folder and a database; the operator applies the pending
// files (each in a transaction, recorded in _cw_migrations) before the runtime lets the build take traffic, so the
// app's very first answer reads the table. A second deploy runs only its new file; a failing file fails the
// deploy with the file, the statement and SQLite's message on the RuntimeApp (Ready False, MigrationFailed, a
// Warning Event), nothing of it applied, and the old build keeps serving; a fixed file then proceeds, and a rollback
// to a build whose files are all recorded runs nothing. `cw db migrate` lists (--dry-run) and applies a folder into
// the same table, so a later deploy runs only what is new.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../src/conditions/index.ts';
import { EVENTS, loadKubeConnection, objectClient, SECRETS, type KubeObject } from '../src/kube/index.ts';
import { RUNTIME_APPS } from '../src/platform/resources.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import type { MemberAccount } from './harness/accounts.ts';
import { cw, cwJson, expectOneLineError, newCwUser } from './harness/cli.ts';
import { startDatabaseAppStack, type DatabaseAppStack } from './harness/database-app-stack.ts';
import { projectCalls } from './harness/project-calls.ts';
import { BASE_DOMAIN, eventually, type Runtime } from './harness/runtime-stack.ts';
import { watchUntil } from './harness/watch.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const clients: Client[] = [];
let stack: DatabaseAppStack | undefined;
let member: MemberAccount;
let runtime: Runtime;

beforeAll(async () => {
  stack = await startDatabaseAppStack('dbmig');
  ({ member, runtime } = stack);
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await stack?.stop();
});

const { call, ok } = projectCalls(
  () => stack?.api,
  () => member,
);

/** Version `version` of the app: every request reads the notes table with its database token and answers `v<version> <Hrana answer>`. */
function worker(version: number): string {
  return `export default {
  async fetch(request, env) {
    const res = await fetch(new URL('v2/pipeline', env.DB_URL), {
      method: 'POST',
      headers: { authorization: 'Bearer ' + env.DB_TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ baton: null, requests: [{ type: 'execute', stmt: { sql: 'SELECT body FROM notes ORDER BY id' } }, { type: 'close' }] }),
    });
    return new Response('v${version} ' + (await res.text()));
  },
};
`;
}

const CONFIG = JSON.stringify({ migrations: { directory: 'migrations', database: 'notes' } });
const INIT = "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\nINSERT INTO notes (body) VALUES ('first');\n";
const TAGS = '-- a second migration\nALTER TABLE notes ADD COLUMN tag TEXT;\n';
const BAD = 'CREATE TABLE audit (at TEXT);\nINSERT INTO missing VALUES (1);\n';
const FIXED = 'CREATE TABLE audit (at TEXT);\n';

const artifact = (version: number, migrations: Record<string, string>) =>
  artifactFromFiles({ 'worker.js': worker(version), 'cloudwright.json': CONFIG, ...Object.fromEntries(Object.entries(migrations).map(([name, sql]) => [`migrations/${name}`, sql])) });

const hostOf = (app: string) => `${app}.${member.project}.${BASE_DOMAIN}`;

/**
 * Every answer the app gave while asked (the harness's probe loop) until `version` answers; each request is a read
 * of the notes table. `others`: the statuses of the answers that were not 200.
 */
async function answersUntil(version: number, others: number[] = []): Promise<string[]> {
  const seen: string[] = [];
  await eventually(
    `v${version} is served`,
    async () => {
      const res = await send(runtime.port, hostOf('journal'), '/');
      if (res.status === 200) seen.push(res.body);
      else others.push(res.status);
      return res;
    },
    (res) => res.status === 200 && res.body.startsWith(`v${version} `),
    60_000,
  );
  return seen;
}

const app = () => objectClient<RuntimeApp>(conn, RUNTIME_APPS).get(member.project, 'journal');

function waitForApp(what: string, done: (app: RuntimeApp) => boolean): Promise<RuntimeApp[]> {
  return watchUntil<RuntimeApp>(conn, RUNTIME_APPS, { namespace: member.project, timeoutMs: 60_000, what }, (apps) => apps.some((a) => a.metadata?.name === 'journal' && done(a)));
}

/** The database as the operator reaches it (the test is an administrator and reads the app token). */
async function appToken(name: string): Promise<{ token: string }> {
  const secret = await objectClient<KubeObject & { data?: Record<string, string> }>(conn, SECRETS).get(member.project, `${name}-app-tokens`);
  return { token: Buffer.from(secret?.data?.FULL_TOKEN ?? '', 'base64').toString('utf8') };
}

async function database(url: string, name = 'notes'): Promise<Client> {
  const client = createClient({ url, authToken: (await appToken(name)).token });
  clients.push(client);
  return client;
}

describe('migrations on deploy', { timeout: 240_000 }, () => {
  it('creates the schema before the first request, runs only new files, and keeps the old build serving when one fails', async () => {
    const { body: created } = await ok<{ database_url: string }>(201, 'POST', '/databases', { name: 'notes' });
    await ok(201, 'POST', '/apps', { name: 'journal' });
    await ok(200, 'PUT', '/apps/journal/environment/DB_TOKEN', { database: 'notes', access: 'full' });
    await ok(200, 'PUT', '/apps/journal/environment/DB_URL', { value: created.database_url });

    // 1. The first deploy: its first answer already reads the table the migration made.
    const { body: first } = await ok<{ build_id: string }>(200, 'POST', '/apps/journal/deployments', artifact(1, { '0001_init.sql': INIT }), 'application/octet-stream');
    const answers = await answersUntil(1);
    expect(answers[0]).toContain('"first"');
    expect(answers.join('\n')).not.toMatch(/no such table/);
    let status = (await app())?.status;
    expect(status?.migrations).toMatchObject({ buildId: first.build_id, database: 'notes', phase: 'Applied', applied: ['0001_init.sql'] });
    expect(findCondition(status?.conditions, 'MigrationsApplied')?.status).toBe('True');

    // 2. A second migration, deployed as soon as the first answers: only it runs; both are recorded. The operator
    // records what is served once the replicas' reports say so, which lags their first answers, and a build held
    // for its migrations serves what is recorded meanwhile: the deploy waits for build 1's record (ci-clone-116
    // deployed sooner, and nothing served while build 2's migrations ran), so build 1 answers until build 2 does.
    const { body: second } = await ok<{ build_id: string }>(200, 'POST', '/apps/journal/deployments', artifact(2, { '0001_init.sql': INIT, '0002_tags.sql': TAGS }), 'application/octet-stream');
    expect((await app())?.status?.served?.buildId).toBe(first.build_id);
    const others: number[] = [];
    expect((await answersUntil(2, others))[0]).toMatch(/^v[12] /);
    expect(others).toEqual([]);
    status = (await app())?.status;
    expect(status?.migrations).toMatchObject({ buildId: second.build_id, phase: 'Applied', applied: ['0002_tags.sql'] });
    const sql = await database(created.database_url);
    expect((await sql.execute('SELECT name FROM _cw_migrations ORDER BY id')).rows.map((r) => r.name)).toEqual(['0001_init.sql', '0002_tags.sql']);
    expect((await sql.execute("SELECT count(*) AS n FROM pragma_table_info('notes') WHERE name = 'tag'")).rows[0]?.n).toBe(1);

    // 3. A failing migration: the deploy fails with the file, statement and SQLite's message; the old build serves on.
    const { body: bad } = await ok<{ build_id: string }>(
      200,
      'POST',
      '/apps/journal/deployments',
      artifact(3, { '0001_init.sql': INIT, '0002_tags.sql': TAGS, '0003_audit.sql': BAD }),
      'application/octet-stream',
    );
    const [failed] = await waitForApp(
      'the RuntimeApp says the migration failed',
      (a) => a.spec.activeBuildId === bad.build_id && findCondition(a.status?.conditions, 'Ready')?.reason === 'MigrationFailed',
    );
    const journal = (failed as RuntimeApp).status;
    expect(journal?.migrations).toMatchObject({ buildId: bad.build_id, phase: 'Failed', failed: { file: '0003_audit.sql', statement: 'INSERT INTO missing VALUES (1);' } });
    expect(journal?.migrations?.failed?.message).toBe('no such table: missing');
    expect(findCondition(journal?.conditions, 'Ready')).toMatchObject({ status: 'False' });
    expect(findCondition(journal?.conditions, 'Ready')?.message).toContain(`Build ${second.build_id} keeps serving`);
    expect(journal?.served?.buildId).toBe(second.build_id);
    // The Event follows the status write.
    await watchUntil<KubeObject & { reason?: string; type?: string; involvedObject?: { name?: string } }>(
      conn,
      EVENTS,
      { namespace: member.project, timeoutMs: 30_000, what: 'a Warning Event MigrationFailed' },
      (events) => events.some((e) => e.involvedObject?.name === 'journal' && e.reason === 'MigrationFailed' && e.type === 'Warning'),
    );
    // Nothing of the failed file was kept (its transaction rolled back), and build 2 still answers.
    expect((await sql.execute("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'audit'")).rows[0]?.n).toBe(0);
    expect((await sql.execute('SELECT count(*) AS n FROM _cw_migrations')).rows[0]?.n).toBe(2);
    const still = await send(runtime.port, hostOf('journal'), '/');
    expect(still.body.startsWith('v2 ')).toBe(true);

    // 4. The file fixed in a new deploy: it proceeds.
    await ok(200, 'POST', '/apps/journal/deployments', artifact(4, { '0001_init.sql': INIT, '0002_tags.sql': TAGS, '0003_audit.sql': FIXED }), 'application/octet-stream');
    await answersUntil(4);
    expect((await app())?.status?.migrations).toMatchObject({ phase: 'Applied', applied: ['0003_audit.sql'] });

    // 5. A rollback to build 2: its migrations are all recorded already, so nothing runs and it serves again.
    await ok(200, 'POST', '/apps/journal/rollbacks', { build_id: second.build_id });
    await answersUntil(2);
    expect((await app())?.status?.migrations).toMatchObject({ buildId: second.build_id, phase: 'Applied', applied: [] });
  });

  it('cw db migrate lists the pending files (--dry-run), applies them, and a deploy then runs only what is new', async () => {
    const { body: created } = await ok<{ database_url: string }>(201, 'POST', '/databases', { name: 'ledger' });
    const user = newCwUser(stack?.api.url ?? '', { CW_TOKEN: member.token, CW_PROJECT: member.project });
    const dir = mkdtempSync(join(inject('stateDir'), 'migrations-'));
    writeFileSync(join(dir, '0001_init.sql'), INIT);
    writeFileSync(join(dir, '0002_tags.sql'), TAGS);

    const dry = await cw(user, ['db', 'migrate', 'ledger', '--dir', dir, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.trim().split('\n')).toEqual(['0001_init.sql', '0002_tags.sql']);
    const sql = await database(created.database_url, 'ledger');
    expect((await sql.execute("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'notes'")).rows[0]?.n).toBe(0);

    const applied = await cwJson<{ pending: string[]; applied: string[] }>(user, ['db', 'migrate', 'ledger', '--dir', dir], {
      method: 'POST',
      path: '/v1/projects/{projectId}/databases/{database}/migrations',
    });
    expect(applied).toEqual({ pending: ['0001_init.sql', '0002_tags.sql'], applied: ['0001_init.sql', '0002_tags.sql'] });
    expect((await sql.execute('SELECT body FROM notes')).rows.map((r) => r.body)).toEqual(['first']);
    // Another database's token is refused: the route applies to the database it names or to none.
    const { token: notesToken } = await appToken('notes');
    const crossed = await fetch(`${stack?.api.url ?? ''}/v1/projects/${member.project}/databases/ledger/migrations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${notesToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ files: [{ name: '0009_x.sql', sql: 'CREATE TABLE crossed (x);' }] }),
    });
    expect(crossed.status).toBe(401);
    const again = await cw(user, ['db', 'migrate', 'ledger', '--dir', dir, '--dry-run']);
    expect(again.stdout).toMatch(/applied every migration/);

    // A failing file: the run stops there, names it, keeps nothing of it, exits non-zero.
    writeFileSync(join(dir, '0003_audit.sql'), BAD);
    const failed = await cw(user, ['db', 'migrate', 'ledger', '--dir', dir]);
    expectOneLineError(failed, 1, /0003_audit.sql failed at `INSERT INTO missing VALUES \(1\);`: no such table: missing/);
    expect((await sql.execute("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'audit'")).rows[0]?.n).toBe(0);

    // A deploy with the same folder bound to this database applies only the file the CLI did not.
    await ok(201, 'POST', '/apps', { name: 'books' });
    const bound = JSON.stringify({ migrations: { directory: 'migrations', database: 'ledger' } });
    const files = { 'worker.js': worker(1), 'cloudwright.json': bound, 'migrations/0001_init.sql': INIT, 'migrations/0002_tags.sql': TAGS, 'migrations/0003_audit.sql': FIXED };
    await ok(200, 'POST', '/apps/books/deployments', artifactFromFiles(files), 'application/octet-stream');
    const [books] = await watchUntil<RuntimeApp>(conn, RUNTIME_APPS, { namespace: member.project, timeoutMs: 60_000, what: 'the migrations of books applied' }, (apps) =>
      apps.some((a) => a.metadata?.name === 'books' && a.status?.migrations?.phase === 'Applied'),
    ).then((apps) => apps.filter((a) => a.metadata?.name === 'books'));
    expect(books?.status?.migrations?.applied).toEqual(['0003_audit.sql']);
  });

  it('refuses an artifact whose migration files are misnamed, naming the file (400)', async () => {
    const res = await call<{ detail: string }>('POST', '/apps/journal/deployments', artifact(5, { 'init.sql': INIT }), 'application/octet-stream');
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/"migrations\/init.sql" is not a migration name/);
  });
});
