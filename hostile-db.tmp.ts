// Issue 36's cw-db attacks against `make dev`, as a tenant of CW_PROJECT against a database of another project.
import { readFileSync } from 'node:fs';
import { createClient } from '@libsql/client';
import { shardIndex } from './database-server/shards/shard-index.ts';

const env = Object.fromEntries(
  readFileSync('.dev/env', 'utf8')
    .split('\n')
    .filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).replace(/^'|'$/g, '')]),
);
const api = env.CW_API_URL!;
async function call(method: string, path: string, token: string, body?: unknown): Promise<any> {
  const r = await fetch(`${api}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-cloudwright-csrf': '1' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}
const victimProject = `victim-${Date.now().toString(36)}`;
console.log('create victim project', (await call('POST', '/v1/projects', env.CW_ADMIN_TOKEN!, { name: victimProject })).status);
let victim: any;
for (let i = 0; i < 30; i++) {
  victim = await call('POST', `/v1/projects/${victimProject}/databases`, env.CW_ADMIN_TOKEN!, { name: 'ledger' });
  if (victim.status !== 409) break;
  await new Promise((r) => setTimeout(r, 1000));
}
console.log('victim db', victim.status, victim.body.database_id);
const v = createClient({ url: victim.body.database_url, authToken: victim.body.database_token });
await v.batch(['CREATE TABLE IF NOT EXISTS secret (v)', "INSERT INTO secret VALUES ('victim secret')"], 'write');
const name = `attack-${Date.now().toString(36)}`;
const attacker = await call('POST', `/v1/projects/${env.CW_PROJECT}/databases`, env.CW_TOKEN!, { name });
console.log('attacker db', attacker.status, attacker.body.database_id, 'shards: attacker', shardIndex(attacker.body.database_id, 2), 'victim', shardIndex(victim.body.database_id, 2));
const a = createClient({ url: attacker.body.database_url, authToken: attacker.body.database_token });
const victimFile = `${process.cwd()}/.dev/state/cw-db/data/${victim.body.database_id}.db`;
for (const sql of ['PRAGMA database_list', `ATTACH DATABASE '${victimFile}' AS v`, `VACUUM INTO '/tmp/stolen.db'`, `SELECT readfile('${victimFile}')`, "SELECT readfile('/proc/self/environ')", `SELECT writefile('/tmp/pwn', 'x')`, "SELECT name FROM fsdir('/')"]) {
  console.log('probe', sql.slice(0, 60), '->', await a.execute(sql).then(() => 'ALLOWED', (e) => `${e.code}`));
}
const ro = await call('POST', `/v1/projects/${env.CW_PROJECT}/databases/${name}/query-tokens`, env.CW_TOKEN!, { read_only: true });
const r = createClient({ url: attacker.body.database_url, authToken: ro.body.query_token });
await a.execute('CREATE TABLE t (v)');
console.log('read-only: PRAGMA query_only=OFF ->', await r.execute('PRAGMA query_only=OFF').then(() => 'ALLOWED', (e) => e.code), '; INSERT ->', await r.execute('INSERT INTO t VALUES (1)').then(() => 'ALLOWED', (e) => e.code));

async function measure(what: string, attack: () => Promise<unknown>): Promise<void> {
  const lat: number[] = [];
  let done = false;
  const outcome = attack().then((x) => x, (e) => e).finally(() => (done = true));
  while (!done) {
    const t = performance.now();
    await v.execute('SELECT count(*) FROM secret');
    lat.push(performance.now() - t);
  }
  lat.sort((x, y) => x - y);
  const out = await outcome;
  console.log(`${what}: victim ${lat.length} queries, p50 ${lat[Math.floor(lat.length / 2)]?.toFixed(1)} ms, p99 ${lat[Math.floor(lat.length * 0.99)]?.toFixed(1)} ms, max ${lat.at(-1)?.toFixed(1)} ms; attack: ${JSON.stringify(out, (k, x) => (typeof x === 'object' && x?.reason ? x.reason.code : x)).slice(0, 200)}`);
}
const LOOP = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r';
await measure('3 looping statements', () => Promise.allSettled([1, 2, 3].map(() => a.execute(LOOP))));
await measure('huge values', () => Promise.allSettled(['SELECT zeroblob(900000000)', 'SELECT randomblob(900000000)', "WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s||s FROM r) SELECT length(s) FROM r"].map((s) => a.execute(s))));
console.log('quota to 16 MiB', (await call('PATCH', `/v1/projects/${env.CW_PROJECT}/databases/${name}`, env.CW_TOKEN!, { limits: { max_size_bytes: 16 * 1024 * 1024 } })).status);
await measure('insert loop until the quota', async () => {
  for (let i = 0; ; i++) {
    try {
      await a.execute('INSERT INTO t VALUES (randomblob(1000000))');
    } catch (e: any) {
      return `${e.code} after ${i} MB`;
    }
  }
});
await a.execute("CREATE TABLE big AS SELECT printf('%.*c', 1000, 'x') AS v FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3000) SELECT n FROM r)").catch((e) => console.log('big', e.code));
const q = await call('POST', `/v1/projects/${env.CW_PROJECT}/databases/${name}/query-tokens`, env.CW_TOKEN!, {});
const big = await fetch(`${api}/v1/projects/${env.CW_PROJECT}/databases/${name}/query`, { method: 'POST', headers: { authorization: `Bearer ${q.body.query_token}`, 'content-type': 'application/json' }, body: JSON.stringify({ sql: "SELECT a.v FROM big a, big b LIMIT 20000" }) });
console.log('query route, 20 MB answer:', big.status, (await big.text()).slice(0, 200));
console.log('victim still reads:', (await v.execute('SELECT v FROM secret')).rows[0]);
console.log('api /readyz', (await fetch(`${api}/readyz`)).status);
