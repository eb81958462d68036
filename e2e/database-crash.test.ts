// What a database keeps when cw-db stops with its disk lost, so that everything comes back from the bucket: a
// `sync` database keeps every commit it acknowledged through a SIGKILL in the middle of a burst of concurrent
// inserts, and an `async` one keeps everything through a graceful SIGTERM even when the flush timer never ran.
import { readFile } from 'node:fs/promises';
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { startDatabaseServer, type DatabaseServer } from './harness/database-server.ts';
import type { Service } from './harness/process.ts';
import { startOperator } from './harness/runtime-stack.ts';

const kubeconfig = inject('kubeconfig');
const running: Service[] = [];
const clients: Client[] = [];
let db: DatabaseServer | undefined;
let api: ApiServer | undefined;
let member: MemberAccount;

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'dbcrash');
  await createProjectNamespace(kubeconfig, member.project);
  // The timer that ships async commits runs once a minute (the most it may be set to): within this file, only
  // a sync commit or a graceful shutdown puts a commit in the bucket.
  db = await startDatabaseServer({ name: 'cw-db-crash', env: { CW_DB_FLUSH_INTERVAL: '60s' } });
  [api] = await Promise.all([startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { CW_DB_URL: db.url } }), startOperator(member.project, running, db.clientEnv)]);
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all([api?.stop(), db?.stop(), ...running.map((s) => s.stop(5_000))]);
});

/** Creates a database through the API and answers clients connected to it. */
async function createDatabase(name: string, durability: 'sync' | 'async'): Promise<{ url: string; token: string; connect: () => Client }> {
  const res = await fetch(`${api?.url}/v1/projects/${member.project}/databases`, {
    method: 'POST',
    headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, durability }),
  });
  const body = (await res.json()) as { database_url: string; database_token: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  const connect = () => {
    const client = createClient({ url: body.database_url, authToken: body.database_token });
    clients.push(client);
    return client;
  };
  return { url: body.database_url, token: body.database_token, connect };
}

async function ids(client: Client): Promise<number[]> {
  return (await client.execute('SELECT id FROM burst ORDER BY id')).rows.map((r) => Number(r.id));
}

describe('cw-db losing its disk', { timeout: 60_000 }, () => {
  it('keeps every acknowledged commit of a sync database through a SIGKILL in the middle of a burst', async () => {
    const database = await createDatabase('crash-sync', 'sync');
    await database.connect().execute('CREATE TABLE burst (id INTEGER PRIMARY KEY, writer INTEGER)');
    const writers = [database.connect(), database.connect(), database.connect(), database.connect()];
    const TOTAL = 200;
    const KILL_AFTER = 40;
    const acknowledged: number[] = [];
    let killing: Promise<void> | undefined;
    const outcomes = await Promise.allSettled(
      Array.from({ length: TOTAL }, async (_, id) => {
        const writer = id % writers.length;
        await writers[writer]?.execute({ sql: 'INSERT INTO burst (id, writer) VALUES (?, ?)', args: [id, writer] });
        acknowledged.push(id);
        // The kill lands on the acknowledgement that reaches the count: more inserts are in flight right then.
        if (acknowledged.length === KILL_AFTER) killing = db?.halt({ signal: 'SIGKILL', wipeDisk: true });
      }),
    );
    await killing;
    const refused = outcomes.filter((o) => o.status === 'rejected').length;
    process.stdout.write(`database-crash: ${acknowledged.length} of ${TOTAL} inserts acknowledged, ${refused} cut off by the SIGKILL\n`);
    expect(killing, 'the kill happened').toBeDefined();
    expect(refused, 'some inserts were cut off by the kill').toBeGreaterThan(0);

    await db?.start();
    const present = await ids(database.connect());
    const lost = acknowledged.filter((id) => !present.includes(id));
    expect(lost, `acknowledged but lost (of ${acknowledged.length})`).toEqual([]);
    expect(present.every((id) => id >= 0 && id < TOTAL)).toBe(true);
  });

  it('keeps every commit of an async database through a graceful SIGTERM that ships what is pending', async () => {
    const database = await createDatabase('graceful-async', 'async');
    const client = database.connect();
    await client.execute('CREATE TABLE burst (id INTEGER PRIMARY KEY, writer INTEGER)');
    await client.batch(
      Array.from({ length: 50 }, (_, id) => ({ sql: 'INSERT INTO burst (id, writer) VALUES (?, 0)', args: [id] })),
      'write',
    );
    for (let id = 50; id < 60; id++) await client.execute({ sql: 'INSERT INTO burst (id, writer) VALUES (?, 1)', args: [id] });
    await db?.restart({ signal: 'SIGTERM', wipeDisk: true });
    expect(await ids(database.connect())).toEqual(Array.from({ length: 60 }, (_, id) => id));
  });

  it('serves each database as soon as it is restored, not once every database is (found by a hostile run)', { timeout: 120_000 }, async () => {
    const large = await createDatabase('restore-large', 'async');
    const small = await createDatabase('restore-small', 'async');
    const big = large.connect();
    await big.execute('CREATE TABLE blobs (b BLOB)');
    // About 96 MB of what does not compress: its restore takes seconds.
    for (let i = 0; i < 12; i++) await big.execute('INSERT INTO blobs SELECT randomblob(1000000) FROM generate_series(1, 8)');
    await small.connect().execute('CREATE TABLE t (v TEXT)');
    await small.connect().execute("INSERT INTO t VALUES ('here')");
    await db?.restart({ signal: 'SIGTERM', wipeDisk: true });
    // The small one answers before the large one is restored (cw-db logs when every database is, with the time).
    expect((await small.connect().execute('SELECT v FROM t')).rows.map((r) => r.v)).toEqual(['here']);
    const smallAnswered = Date.now();
    expect((await big.execute('SELECT count(*) AS n FROM blobs')).rows[0]?.n).toBe(96);
    const restoredLine = async () => {
      const log = await readFile(db?.service?.logPath ?? '', 'utf8');
      return log
        .slice(log.lastIndexOf('"msg":"cw-db serving"'))
        .split('\n')
        .find((line) => line.includes('"msg":"every database restored"'));
    };
    await vi.waitFor(async () => expect(await restoredLine()).toBeDefined(), { timeout: 10_000, interval: 50 });
    const restoredAt = Date.parse((JSON.parse((await restoredLine())!) as { time: string }).time);
    expect(restoredAt).toBeGreaterThan(smallAnswered);
  });
});
