// One tenant cannot reach, stall or starve another on a shared cw-db: the attacks of issue 36 run against a real
// cw-db (main process and two shard processes) with the official @libsql/client, each while victims on the other
// shard and on the attacker's own shard are measured. The limits are small so they are reached quickly.
import { readFileSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect, type Socket } from 'node:net';
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { generateDatabaseToken } from '../src/platform/databases/database-token.ts';
import { shardIndex } from '../database-server/shards/shard-index.ts';
import { tokenSha256 } from '../database-server/token-index.ts';
import { adminCall, startDatabaseServer, type DatabaseServer } from './harness/database-server.ts';

const SHARDS = 2;
const STATEMENT_LIMIT_MS = 1000;
const SHARD_MEMORY_MIB = 64;
const REQUEST_LIMIT_MS = 3000;
const LOOP = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r';

let db: DatabaseServer;
const sockets: Socket[] = [];
const clients: Client[] = [];
const tokens = new Map<string, string>();

/** A tenant id on `shard` (databases are hashed to shards by id). */
function tenantOn(shard: number, prefix: string): string {
  for (let i = 0; ; i++) if (shardIndex(`${prefix}-${i}`, SHARDS) === shard) return `${prefix}-${i}`;
}
const attacker = tenantOn(0, 'attacker');
const neighbour = tenantOn(0, 'neighbour'); // the attacker's shard
const bystander = tenantOn(1, 'bystander'); // the other shard

const admin = (method: string, path: string, body?: unknown) => adminCall(db, method, path, body);

async function provision(tenant: string, limits?: { statement_timeout_ms?: number; max_size_bytes?: number }, project?: string, durability = 'async'): Promise<void> {
  const token = tokens.get(tenant) ?? generateDatabaseToken();
  tokens.set(tenant, token);
  const { status, json } = await admin('PUT', `/v1/tenants/${tenant}`, {
    tokens: [{ sha256: tokenSha256(token) }],
    durability,
    ...(project ? { project } : {}),
    ...(limits ? { limits } : {}),
  });
  expect([200, 201], JSON.stringify(json)).toContain(status);
}

function connect(tenant: string): Client {
  const client = createClient({ url: `${db.url}/v1/${tenant}`, authToken: tokens.get(tenant) });
  clients.push(client);
  return client;
}

/** Runs `probe` back to back while `attack` runs, and answers the probes' latencies in ms (and the attack's outcome). */
async function during<T>(attack: Promise<T>, probe: () => Promise<unknown>): Promise<{ latencies: number[]; outcome: T }> {
  const latencies: number[] = [];
  let done = false;
  const outcome = attack.finally(() => (done = true));
  while (!done) {
    const started = performance.now();
    await probe();
    latencies.push(performance.now() - started);
  }
  return { latencies, outcome: await outcome };
}

const stats = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { n: ms.length, p50: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
};
const report = (what: string, ms: number[]) => {
  const { n, p50, max } = stats(ms);
  process.stdout.write(`database-isolation: ${what}: ${n} probes, p50 ${p50.toFixed(1)} ms, max ${max.toFixed(1)} ms\n`);
};

/** Peak and current resident memory of cw-db's shard processes, in MiB. */
async function shardMemory(): Promise<{ pid: number; peakMiB: number; rssMiB: number }[]> {
  const { json } = await admin('GET', '/v1/shards');
  return (json.shards as { pid: number }[]).map(({ pid }) => {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { pid, peakMiB: kib('VmHWM') / 1024, rssMiB: kib('VmRSS') / 1024 };
  });
}

/** cw-db's main process: its peak resident memory is reset, and `peakMiB` answers it since, with the current. */
function mainMemory(): { resetPeak: () => void; peakMiB: () => number; rssMiB: () => number } {
  const pid = db.service?.child.pid;
  if (pid === undefined) throw new Error('cw-db is not running');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return { resetPeak: () => writeFileSync(`/proc/${pid}/clear_refs`, '5'), peakMiB: () => kib('VmHWM') / 1024, rssMiB: () => kib('VmRSS') / 1024 };
}

beforeAll(async () => {
  db = await startDatabaseServer({
    name: 'cw-db-isolation',
    env: {
      CW_DB_SHARDS: String(SHARDS),
      CW_DB_STATEMENT_TIMEOUT: `${STATEMENT_LIMIT_MS}ms`,
      // The watchdog waits twice this plus 2 s for a shard that stopped answering.
      CW_DB_MAX_STATEMENT_TIMEOUT: '2s',
      CW_DB_MAX_REQUEST_TIME: `${REQUEST_LIMIT_MS}ms`,
      CW_DB_SHARD_MEMORY_MIB: String(SHARD_MEMORY_MIB),
      CW_DB_SIZE_QUOTA_MIB: '50',
      CW_DB_MAX_SIZE_QUOTA_MIB: '100',
      // No bound on open databases short of the memory: one test here fills the shard's memory itself, as a burst
      // of databases opened within the bound's grace would (e2e/database-idle-close tests the bound).
      CW_DB_MAX_OPEN_PER_SHARD: '1000000',
    },
  });
  for (const tenant of [attacker, neighbour, bystander]) await provision(tenant);
  await connect(neighbour).batch(['CREATE TABLE secret (v TEXT)', "INSERT INTO secret VALUES ('neighbour secret')"], 'write');
  await connect(bystander).execute('CREATE TABLE t (v)');
}, 120_000);

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  for (const client of clients) client.close();
  await db?.stop();
});

describe('one tenant on a shared cw-db', { timeout: 60_000 }, () => {
  it("cannot read or write another database's file, or the engine's environment", async () => {
    const client = connect(attacker);
    const neighbourFile = `${db.dataDir}/${neighbour}.db`;
    for (const sql of [
      `ATTACH DATABASE '${neighbourFile}' AS n`,
      `SELECT sha3_query('ATTACH ''${neighbourFile}'' || '''''''' AS n')`,
      `VACUUM INTO '${db.dataDir}/copy.db'`,
      `SELECT readfile('${neighbourFile}')`,
      "SELECT readfile('/proc/self/environ')",
      `SELECT writefile('${neighbourFile}', 'x')`,
      `SELECT name FROM fsdir('${db.dataDir}')`,
      'PRAGMA database_list',
    ]) {
      await expect(client.execute(sql), sql).rejects.toMatchObject({ code: expect.stringMatching(/SQLITE_AUTH|SQLITE_ERROR/), message: expect.stringMatching(/not authorized/) });
    }
    expect((await connect(neighbour).execute('SELECT v FROM secret')).rows[0]?.v).toBe('neighbour secret');
  });

  it('loops: its statements are interrupted at the limit, the other shard does not notice, its own shard waits at most the limit', async () => {
    const client = connect(attacker);
    const loops = () => Promise.allSettled([1, 2, 3].map(() => client.execute(LOOP)));
    const other = await during(loops(), () => connect(bystander).execute('SELECT 1'));
    report('other shard during 3 looping statements', other.latencies);
    for (const outcome of other.outcome) expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'SQLITE_INTERRUPT' } });
    expect(stats(other.latencies).max).toBeLessThan(STATEMENT_LIMIT_MS / 2);

    const same = await during(loops(), () => connect(neighbour).execute('SELECT count(*) FROM secret'));
    report('same shard during 3 looping statements', same.latencies);
    expect(stats(same.latencies).max).toBeLessThan(STATEMENT_LIMIT_MS * 1.5);
    // The attacker took seconds of the shard its neighbour uses: its later statements are cut short (250 ms).
    expect(same.outcome.some((o) => o.status === 'rejected' && /cut short/.test((o.reason as Error).message))).toBe(true);
    const health = await during(loops(), () => fetch(`${db.url}/health`).then((r) => r.text()));
    report('cw-db /health during 3 looping statements', health.latencies);
    expect(stats(health.latencies).max).toBeLessThan(STATEMENT_LIMIT_MS / 2);
  });

  it('loops statements of a longer limit while its neighbour asks now and then: the neighbour waits about the cap each time, not the limit', async () => {
    // review-184 H6: a neighbour quiet for a second no longer contended, so the looper's next statement ran its whole
    // limit, and the neighbour's next request waited for most of it, every time (8 s of a 10 s limit, asking every 3 s).
    const looper = tenantOn(0, 'looper');
    await provision(looper, { statement_timeout_ms: 2000 }, 'looper');
    const client = connect(looper);
    let done = false;
    const looping = (async () => {
      const outcomes: string[] = [];
      while (!done)
        outcomes.push(
          await client.execute(LOOP).then(
            () => 'ok',
            (e: Error) => (/cut short/.test(e.message) ? 'cut' : 'limit'),
          ),
        );
      return outcomes;
    })();
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const started = performance.now();
      await connect(neighbour).execute('SELECT count(*) FROM secret');
      waits.push(performance.now() - started);
    }
    done = true;
    const outcomes = await looping;
    report('same shard, asking every 1.5 s while another project loops 2 s statements', waits);
    expect(outcomes.length).toBeGreaterThan(0);
    // Unfixed: about 1.5 s each (the rest of a 2 s statement begun a second after the neighbour's last turn).
    expect(stats(waits).max).toBeLessThan(STATEMENT_LIMIT_MS);
  });

  it('asks for huge values: the statement fails with SQLITE_NOMEM and the shard stays within its memory bound', async () => {
    const client = connect(attacker);
    const other = await during(
      Promise.allSettled([
        client.execute('SELECT zeroblob(900000000)'),
        client.execute('SELECT randomblob(900000000)'),
        client.execute("WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r"),
      ]),
      () => connect(bystander).execute('SELECT 1'),
    );
    report('other shard during huge values', other.latencies);
    for (const outcome of other.outcome) expect(outcome).toMatchObject({ status: 'rejected', reason: { code: expect.stringMatching(/SQLITE_NOMEM|SQLITE_INTERRUPT|SQLITE_TOOBIG/) } });
    const memory = await shardMemory();
    process.stdout.write(`database-isolation: shard peak memory ${memory.map((m) => `${m.peakMiB.toFixed(0)} MiB`).join(', ')}\n`);
    // SQLite's bound plus the process itself (Node, the engine, answers in flight): far below the 900 MB asked.
    for (const shard of memory) expect(shard.peakMiB).toBeLessThan(SHARD_MEMORY_MIB + 200);
    expect((await client.execute('SELECT 1 AS one')).rows[0]?.one).toBe(1);
  });

  it('fills its database: writes past the quota fail, its size and quota are reported, and a quota over the maximum is refused', async () => {
    await provision(attacker, { max_size_bytes: 2 * 1024 * 1024 });
    const client = connect(attacker);
    await client.execute('CREATE TABLE IF NOT EXISTS junk (b BLOB)');
    let full: unknown;
    for (let i = 0; i < 100 && full === undefined; i++)
      full = await client.execute('INSERT INTO junk VALUES (randomblob(100000))').then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(full).toMatchObject({ code: 'SQLITE_FULL', message: expect.stringContaining('size quota of 2 MiB') });
    const { json } = await admin('GET', `/v1/tenants/${attacker}`);
    expect(json).toMatchObject({ limits: { statement_timeout_ms: STATEMENT_LIMIT_MS, max_size_bytes: 2 * 1024 * 1024 } });
    expect(json.size_bytes as number).toBeLessThanOrEqual(2 * 1024 * 1024 + 4 * 1024 * 1024); // the file within the quota, the WAL beside it
    expect(
      await admin('PUT', `/v1/tenants/${attacker}`, { tokens: [{ sha256: tokenSha256(tokens.get(attacker) ?? '') }], durability: 'async', limits: { max_size_bytes: 200 * 1024 * 1024 } }),
    ).toMatchObject({
      status: 422,
      json: { code: 'LIMIT_OUT_OF_RANGE', message: expect.stringContaining('at most 100 MiB') },
    });
    await client.execute('DROP TABLE junk');
  });

  it("opens databases until its shard's memory is spent: refused 503 NO_CAPACITY, nothing of the refused one kept, the neighbour answering once they go", async () => {
    const opened: string[] = [];
    let refused: { tenant: string; status: number; json: Record<string, unknown> } | undefined;
    // About 200 KiB of SQLite's memory an open database: some 300 fill the shard's 64 MiB.
    for (let i = 0; i < 2000 && refused === undefined; i++) {
      const tenant = tenantOn(0, `filler-${i}`);
      const { status, json } = await admin('PUT', `/v1/tenants/${tenant}`, { tokens: [{ sha256: tokenSha256(generateDatabaseToken()) }], durability: 'async' });
      if (status === 201) opened.push(tenant);
      else refused = { tenant, status, json };
    }
    process.stdout.write(`database-isolation: ${opened.length} more databases opened on a ${SHARD_MEMORY_MIB} MiB shard before the refusal\n`);
    expect(refused?.status, JSON.stringify(refused?.json)).toBe(503);
    expect(refused?.json).toMatchObject({ code: 'NO_CAPACITY' });
    expect(String(refused?.json.message)).toContain('CW_DB_SHARD_MEMORY_MIB');
    expect((await admin('GET', `/v1/tenants/${refused?.tenant}`)).status).toBe(404);
    for (const tenant of opened) expect((await admin('DELETE', `/v1/tenants/${tenant}`)).status).toBe(204);
    expect((await connect(neighbour).execute('SELECT v FROM secret')).rows[0]?.v).toBe('neighbour secret');
  });

  it('answers too much: the statement fails, never a cut-off result', async () => {
    const client = connect(bystander);
    await client.execute("INSERT INTO t SELECT printf('%.*c', 1000, 'x') FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 12000) SELECT n FROM r)");
    await expect(client.execute('SELECT v FROM t')).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
    expect((await client.execute('SELECT count(*) AS n FROM t')).rows[0]?.n).toBe(12000);
    await client.execute('DELETE FROM t');
  });

  it("takes every request slot of its shard with long batches from eight databases of one project: another project's request is lent a place at once and waits for a statement of theirs, not a batch", async () => {
    const batchers = Array.from({ length: 8 }, (_, i) => tenantOn(0, `batcher${i}`));
    // Their share is an account's, as the operator sends it for the projects one user created.
    for (const tenant of batchers) await provision(tenant, undefined, 'user:batcher');
    // Six statements each running to its 1 s limit, taking turns with the seven others' in the shard: some 50 s a request.
    const batch = (tenant: string) =>
      fetch(`${db.url}/v1/${tenant}/v2/pipeline`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.get(tenant)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ baton: null, requests: [...Array.from({ length: 6 }, () => ({ type: 'execute', stmt: { sql: LOOP } })), { type: 'close' }] }),
      }).then((r) => r.json() as Promise<{ results: { type: string; error?: { message: string } }[] }>);
    const attack = Promise.all(batchers.map(batch));
    // The neighbour asks once all eight run, every slot of the shard taken.
    await expect.poll(async () => ((await admin('GET', '/v1/shards')).json.shards as { running: number }[])[0]?.running, { timeout: 10_000 }).toBe(8);
    const started = performance.now();
    await connect(neighbour).execute('SELECT count(*) FROM secret');
    const waited = performance.now() - started;
    process.stdout.write(`database-isolation: a request behind 8 long batches of one project: ${waited.toFixed(0)} ms\n`);
    // Lent a place beyond the eight at once, it waits for no batch to end: only for a statement of the batchers'
    // project (they take turns by project) and its own, never for a batch's time (REQUEST_LIMIT_MS).
    expect(waited).toBeLessThan(REQUEST_LIMIT_MS);
    for (const answer of await attack) expect(answer.results.some((r) => r.type === 'error' && /one request may run/.test(r.error?.message ?? ''))).toBe(true);
  });

  it("writes one huge transaction: cw-db's main process ships it to the bucket a segment at a time, never holding it", async () => {
    const hoarder = tenantOn(0, 'hoarder');
    await provision(hoarder, { statement_timeout_ms: 2000, max_size_bytes: 100 * 1024 * 1024 }, undefined, 'sync');
    const client = connect(hoarder);
    await client.execute('CREATE TABLE big (b BLOB)');
    const memory = mainMemory();
    memory.resetPeak();
    const baseline = memory.rssMiB();
    // 80 MB of pages in one commit; acknowledged (sync durability) once every segment of it is in the bucket.
    await client.execute('INSERT INTO big SELECT zeroblob(1000000) FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 80) SELECT n FROM r)');
    const grew = memory.peakMiB() - baseline;
    process.stdout.write(`database-isolation: cw-db main process grew ${grew.toFixed(0)} MiB at its peak shipping an 80 MB transaction\n`);
    // A segment buffer or two, a 4 MiB read buffer, and what the collector has not taken back yet (12–64 MiB seen,
    // the most on a busy host).
    expect(grew).toBeLessThan(96); // 161 MiB when it held the transaction
    expect((await client.execute('SELECT count(*) AS n, sum(length(b)) AS bytes FROM big')).rows[0]).toMatchObject({ n: 80, bytes: 80_000_000 });
  });

  it("reads none of its answers: cw-db's main process holds no more than the project's memory bound of them, and serves the others", async () => {
    const memory = mainMemory();
    memory.resetPeak();
    const baseline = memory.rssMiB();
    // Each answer about 16 MB (two 8 MB values): more than a connection's socket buffers take, so most of it would
    // wait in cw-db's main process for a reader that never comes.
    const body = JSON.stringify({ requests: [0, 1].map(() => ({ type: 'execute', stmt: { sql: 'SELECT randomblob(6000000)' } })).concat([{ type: 'close' } as never]) });
    const { hostname, port } = new URL(db.url);
    const sizes = await Promise.all(
      Array.from({ length: 16 }, async () => {
        const socket = tcpConnect(Number(port), hostname);
        sockets.push(socket);
        socket.write(`POST /v1/${attacker}/v2/pipeline HTTP/1.1\r\nhost: cw-db\r\nauthorization: Bearer ${tokens.get(attacker)}\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
        // The head is in the first bytes that reach the socket; after it, nothing more is read.
        const head = await new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1', 0, 512))));
        socket.pause();
        return Number(/content-length: (\d+)/i.exec(head)?.[1]);
      }),
    );
    const big = sizes.filter((size) => size > 10_000_000).length;
    const grew = memory.peakMiB() - baseline;
    process.stdout.write(`database-isolation: 16 answers of 16 MB nobody reads: ${big} made, ${16 - big} refused; main process grew ${grew.toFixed(0)} MiB at its peak\n`);
    // Made until the project held its 64 MiB of them (one more may be under way as it passes it); the rest refused.
    expect(big).toBeLessThanOrEqual(6);
    expect(sizes.every((size) => size > 0)).toBe(true);
    // Each answer made costs the process about three times its size at the peak (the shard's reply, its JSON, the
    // unsent rest), garbage the collector takes back later: 281 MiB for these 6 against 496 for 16 unbounded.
    expect(grew).toBeLessThan(16 * 16 * 1.5);
    expect((await connect(bystander).execute('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    for (const socket of sockets.splice(0)) socket.destroy();
  });

  it('sends 10 MiB of JSON nested millions deep, over HTTP and over WebSocket: refused unparsed, and the other databases keep answering', async () => {
    // V8's JSON.parse took 2–6 s over each on the main event loop every database shares (review-184 H3).
    const depth = 4.9 * 1024 * 1024;
    const nested = Buffer.from('['.repeat(depth) + ']'.repeat(depth));
    const deep = Buffer.concat([Buffer.from('{"requests":['), nested, Buffer.from(']}')]);
    const http = () =>
      fetch(`${db.url}/v1/${attacker}/v2/pipeline`, { method: 'POST', headers: { authorization: `Bearer ${tokens.get(attacker)}` }, body: deep }).then(async (r) => ({
        status: r.status,
        code: ((await r.json()) as { code?: string }).code,
      }));
    const webSocket = () =>
      new Promise<number>((resolve, reject) => {
        // Before a hello a connection is dropped past 128 KiB (the next test): this one says its hello first.
        const ws = new WebSocket(`${db.url.replace('http', 'ws')}/v1/${attacker}`, ['hrana3']);
        ws.once('open', () => ws.send(JSON.stringify({ type: 'hello', jwt: tokens.get(attacker) })));
        ws.once('message', () => ws.send(nested, { binary: false }));
        ws.once('close', (code) => resolve(code));
        ws.once('error', reject);
      });
    const attack = async () => {
      const answers: unknown[] = [];
      for (let round = 0; round < 4; round++) answers.push(...(await Promise.all([http(), webSocket()])));
      return answers;
    };
    const other = await during(attack(), () => connect(bystander).execute('SELECT 1'));
    report('other shard during 8 deeply nested 10 MiB messages', other.latencies);
    expect(other.outcome).toEqual([0, 1, 2, 3].flatMap(() => [{ status: 400, code: 'HRANA_PROTO_ERROR' }, 1002]));
    const same = await during(attack(), () => connect(neighbour).execute('SELECT count(*) FROM secret'));
    report("attacker's shard during 8 deeply nested 10 MiB messages", same.latencies);
    // Each message is still 10 MiB to receive on a loaded machine (a probe waits a few hundred ms behind some), but none
    // holds the loop for seconds as the parse did (review-184: p50 1.8 s, max 4.7 s on the other shard).
    for (const { latencies } of [other, same]) {
      expect(stats(latencies).p50).toBeLessThan(STATEMENT_LIMIT_MS / 2);
      expect(stats(latencies).max).toBeLessThan(STATEMENT_LIMIT_MS * 1.5);
    }
  });

  it("opens WebSockets with no token and sends big unfinished messages, never a hello: each is dropped past its pre-hello budget, cw-db's main process holds a few MiB of them, and the others keep answering", async () => {
    // review-184 H4: 60 such connections held 9 MiB each, uncharged: cw-db's main process went from 141 to 694 MiB.
    const memory = mainMemory();
    memory.resetPeak();
    const baseline = memory.rssMiB();
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const url = `${db.url.replace('http', 'ws')}/v1/no-such-database`;
    const sockets = Array.from({ length: 60 }, () => new WebSocket(url, ['hrana3']));
    const attack = Promise.all(
      sockets.map(async (ws) => {
        ws.on('error', () => {});
        const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
        const opened = await new Promise<boolean>((resolve) => ws.once('open', () => resolve(true)).once('close', () => resolve(false)));
        // Fragments of one text message, never finished: 9 MiB of it, as fast as the connection takes them.
        for (let i = 0; opened && i < 9 && ws.readyState === WebSocket.OPEN; i++) await new Promise<void>((resolve) => ws.send(chunk, { fin: false, binary: false }, () => resolve()));
        return closed;
      }),
    );
    const other = await during(attack, () => connect(bystander).execute('SELECT 1'));
    const grew = memory.peakMiB() - baseline;
    report('other shard during 60 anonymous WebSockets sending 9 MiB unfinished', other.latencies);
    process.stdout.write(`database-isolation: 60 anonymous WebSockets sending 9 MiB unfinished: main process grew ${grew.toFixed(0)} MiB at its peak\n`);
    // Every one dropped (1006: no close frame), none of them left to wait for its hello timer.
    expect(new Set(other.outcome)).toEqual(new Set([1006]));
    // 128 KiB each at most (16 MiB in all), besides what receiving takes: unbounded, 553 MiB.
    expect(grew).toBeLessThan(100);
    // A client over WebSocket is served as before, its first request (sent right behind its hello) bigger than the budget.
    const viaWs = createClient({ url: `${db.url.replace('http', 'ws')}/v1/${bystander}`, authToken: tokens.get(bystander) });
    clients.push(viaWs);
    expect((await viaWs.execute({ sql: 'SELECT length(?) AS n', args: ['x'.repeat(1024 * 1024)] })).rows[0]?.n).toBe(1024 * 1024);
  });

  it('opens a WebSocket and sends a message a little at a time, never a hello: it is closed 5 s after its upgrade', async () => {
    const ws = new WebSocket(`${db.url.replace('http', 'ws')}/v1/no-such-database`, ['hrana3']);
    const closed = new Promise<[number, string]>((resolve) => ws.once('close', (code, reason) => resolve([code, reason.toString()])));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const opened = performance.now();
    // Unfinished, so no message ever completes (the old timer counted from the last complete one).
    const drip = setInterval(() => ws.readyState === WebSocket.OPEN && ws.send('[', { fin: false }), 200);
    const [code, reason] = await closed;
    clearInterval(drip);
    const after = performance.now() - opened;
    expect([code, reason]).toEqual([4001, 'No hello']);
    expect(after).toBeGreaterThan(4_500);
    expect(after).toBeLessThan(8_000);
  });

  it('stalls its shard beyond every limit: the watchdog kills and restarts that shard only, and its databases come back', async () => {
    const before = ((await admin('GET', '/v1/shards')).json.shards as { index: number; pid: number; restarts: number }[])[0]!;
    // As if the engine failed to stop a statement: the process stops answering altogether.
    process.kill(before.pid, 'SIGSTOP');
    const stalled = connect(neighbour)
      .execute('SELECT count(*) FROM secret')
      .then(
        () => 'answered',
        (e: unknown) => (e as { message?: string }).message ?? String(e),
      );
    const other = await during(stalled, () => connect(bystander).execute('SELECT 1'));
    report('other shard while a shard was stuck and restarted', other.latencies);
    expect(other.outcome).toMatch(/restarted while running this request|answered/);
    expect(stats(other.latencies).max).toBeLessThan(STATEMENT_LIMIT_MS / 2);
    const after = ((await admin('GET', '/v1/shards')).json.shards as { index: number; pid: number; restarts: number }[])[0]!;
    expect(after.pid).not.toBe(before.pid);
    expect(after.restarts).toBe(before.restarts + 1);
    expect((await connect(neighbour).execute('SELECT v FROM secret')).rows[0]?.v).toBe('neighbour secret');
  });
});
