// Many databases on cw-db, as `make bench-scale-databases` makes and reads them: created through the admin API
// (PUT /v1/tenants/:id, as cw-operator does), asked `SELECT 1` with the official @libsql/client, their owners read
// from the leases in the bucket.
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@libsql/client';
import { LeaseStore } from '../database-server/cluster/lease-store.ts';
import { listAll } from '../src/object-store/list-all.ts';
import type { ObjectStore } from '../src/object-store/object-store.ts';

/** A cw-db reached at its two URLs (a replica, or a single cw-db). */
export interface DbEndpoint {
  readonly name: string;
  readonly url: string;
  readonly adminUrl: string;
}

export interface CreatedDatabase {
  readonly tenant: string;
  readonly token: string;
  readonly durability: 'sync' | 'async';
  /** The replica that answered the creation as its owner (absent on a single cw-db). */
  readonly owner: string | undefined;
}

/** A refusal the creation retried (503 DATABASE_MOVING while placement settles, or a connection refused). */
const RETRIES = 30;

/** Runs `fn` on every item, at most `concurrency` at once, in order of the items. */
export async function eachAtMost<T>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * Creates each database through the admin API of `via(i)` (round robin, say): the replica that receives a creation
 * forwards it to the one placement prefers. Answers the databases and how many creations had to be retried.
 */
export async function createDatabases(
  tenants: readonly { tenant: string; durability: 'sync' | 'async' }[],
  options: { adminToken: string; concurrency: number; via: (index: number) => DbEndpoint },
): Promise<{ created: CreatedDatabase[]; retries: number }> {
  const created: CreatedDatabase[] = new Array(tenants.length);
  let retries = 0;
  await eachAtMost(tenants, options.concurrency, async ({ tenant, durability }, i) => {
    const token = randomBytes(24).toString('hex');
    const body = JSON.stringify({ tokens: [{ sha256: createHash('sha256').update(token).digest('hex') }], durability });
    for (let attempt = 0; ; attempt++) {
      const answer = await fetch(`${options.via(i).adminUrl}/v1/tenants/${tenant}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${options.adminToken}`, 'content-type': 'application/json' },
        body,
      }).then(
        async (res) => ({ status: res.status, text: await res.text() }),
        (err: unknown) => ({ status: 0, text: String(err) }),
      );
      if (answer.status === 201) {
        const replica = (JSON.parse(answer.text) as { replica?: string }).replica;
        created[i] = { tenant, token, durability, owner: replica };
        return;
      }
      if ((answer.status !== 503 && answer.status !== 0) || attempt === RETRIES) throw new Error(`creating ${tenant} through ${options.via(i).name}: ${answer.status} ${answer.text.slice(0, 300)}`);
      retries++;
      await sleep(200);
    }
  });
  return { created, retries };
}

/** `SELECT 1` through `via`'s Hrana endpoint with the official client; resolves with the milliseconds it took, rejects with the client's error. */
export async function selectOne(via: DbEndpoint, database: CreatedDatabase): Promise<number> {
  const client = createClient({ url: `${via.url}/v1/${database.tenant}`, authToken: database.token });
  const start = performance.now();
  try {
    const result = await client.execute('SELECT 1');
    if (Number(result.rows[0]?.[0]) !== 1) throw new Error(`${database.tenant} through ${via.name} answered ${JSON.stringify(result.rows)} to SELECT 1`);
    return performance.now() - start;
  } finally {
    client.close();
  }
}

/**
 * Asks every database `SELECT 1` through `via(database)` until it answers, `concurrency` at a time, each again no
 * sooner than `retryMs` after a failure: answers when each first answered (`performance.now()`), the latency of
 * that answer, how many asks failed before, and the mean time from a failure to the next ask of the same database. Gives up at `deadline` (a `performance.now()`), leaving the rest out.
 */
export async function firstAnswers(
  databases: readonly CreatedDatabase[],
  options: { concurrency: number; via: (database: CreatedDatabase) => DbEndpoint; retryMs: number; deadline: number },
): Promise<{ answeredAt: Map<string, number>; latencyMs: Map<string, number>; failures: number; lastError: string; retryGapMs: number }> {
  const answeredAt = new Map<string, number>();
  const latencyMs = new Map<string, number>();
  let failures = 0;
  let lastError = '';
  // A refused database is asked again `retryMs` later at the soonest, later when the queue is long: the gaps say
  // how finely the first answers are timed.
  let gaps = 0;
  const queue = databases.map((database) => ({ database, due: 0, failedAt: undefined as number | undefined }));
  const worker = async () => {
    while (answeredAt.size < databases.length && performance.now() < options.deadline) {
      const item = queue.shift();
      // All the rest are being asked by other workers: one of them may fail and come back.
      if (item === undefined) {
        await sleep(10);
        continue;
      }
      const wait = item.due - performance.now();
      if (wait > 0) await sleep(wait);
      if (item.failedAt !== undefined) gaps += performance.now() - item.failedAt;
      try {
        latencyMs.set(item.database.tenant, await selectOne(options.via(item.database), item.database));
        answeredAt.set(item.database.tenant, performance.now());
      } catch (err) {
        failures++;
        lastError = err instanceof Error ? err.message : String(err);
        queue.push({ database: item.database, due: performance.now() + options.retryMs, failedAt: performance.now() });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, databases.length) }, worker));
  return { answeredAt, latencyMs, failures, lastError, retryGapMs: failures === 0 ? 0 : gaps / failures };
}

/** Each database's lease holder as the bucket has it (null: released, a handover under way; undefined: no lease). */
export async function leaseHolders(store: ObjectStore, tenants: readonly string[], concurrency: number): Promise<Map<string, string | null | undefined>> {
  const leases = new LeaseStore(store);
  const holders = new Map<string, string | null | undefined>();
  await eachAtMost(tenants, concurrency, async (tenant) => {
    const read = await leases.read(tenant);
    holders.set(tenant, read === undefined ? undefined : (read.lease.holder?.name ?? null));
  });
  return holders;
}

/** The objects of a bucket: count and bytes (a listing, a thousand keys a request). */
export async function bucketTotals(store: ObjectStore): Promise<{ objects: number; bytes: number }> {
  let objects = 0;
  let bytes = 0;
  for await (const info of listAll(store, '')) {
    objects++;
    bytes += info.size;
  }
  return { objects, bytes };
}
