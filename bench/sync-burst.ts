// Inserts into synchronous databases, one writer each with the official @libsql/client, across a failover:
// every insert acknowledged must be there afterwards (a synchronous commit is acknowledged only once its segment is
// in the bucket under a lease surely held). `make bench-scale-databases` fails on a lost one.
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, type Client } from '@libsql/client';
import type { CreatedDatabase, DbEndpoint } from './database-fleet.ts';

/** After a refused insert (the database moving), the writer waits this long before the next. */
const AFTER_REFUSAL_MS = 50;

interface Writer {
  readonly database: CreatedDatabase;
  readonly client: Client;
  readonly acknowledged: number[];
  refused: number;
}

export interface BurstCheck {
  acknowledged: number;
  refused: number;
  /** Acknowledged inserts missing afterwards, by database. */
  lost: Map<string, number[]>;
}

export class SyncBurst {
  readonly #writers: Writer[];
  readonly #via: (database: CreatedDatabase) => DbEndpoint;
  #stopped = false;
  #loops: Promise<void>[] = [];
  #progress: () => void = () => {};

  /** `via`: where each database is written and read (a replica that survives the kill). */
  constructor(databases: readonly CreatedDatabase[], via: (database: CreatedDatabase) => DbEndpoint) {
    this.#via = via;
    this.#writers = databases.map((database) => ({ database, client: createClient({ url: `${via(database).url}/v1/${database.tenant}`, authToken: database.token }), acknowledged: [], refused: 0 }));
  }

  /** Creates the table, then starts every writer: ids 0, 1, 2, … one insert at a time until `stop()`. */
  async start(): Promise<void> {
    for (const w of this.#writers) await w.client.execute('CREATE TABLE burst (id INTEGER PRIMARY KEY)');
    this.#loops = this.#writers.map((w) => this.#write(w));
  }

  /** Resolves once every writer has had `count` inserts acknowledged. */
  async acknowledgedEach(count: number): Promise<void> {
    while (this.#writers.some((w) => w.acknowledged.length < count)) await new Promise<void>((resolve) => (this.#progress = resolve));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#loops);
  }

  /** Reads every database back (asking again while it is moving, until `deadline`) and compares. */
  async check(deadline: number): Promise<BurstCheck> {
    const lost = new Map<string, number[]>();
    for (const w of this.#writers) {
      const reader = createClient({ url: `${this.#via(w.database).url}/v1/${w.database.tenant}`, authToken: w.database.token });
      try {
        const present = new Set(await readIds(reader, w.database.tenant, deadline));
        const missing = w.acknowledged.filter((id) => !present.has(id));
        if (missing.length > 0) lost.set(w.database.tenant, missing);
      } finally {
        reader.close();
      }
    }
    for (const w of this.#writers) w.client.close();
    return { acknowledged: this.#writers.reduce((n, w) => n + w.acknowledged.length, 0), refused: this.#writers.reduce((n, w) => n + w.refused, 0), lost };
  }

  async #write(w: Writer): Promise<void> {
    for (let id = 0; !this.#stopped; id++) {
      try {
        await w.client.execute({ sql: 'INSERT INTO burst (id) VALUES (?)', args: [id] });
        w.acknowledged.push(id);
        this.#progress();
      } catch {
        w.refused++;
        await sleep(AFTER_REFUSAL_MS);
      }
    }
  }
}

async function readIds(reader: Client, tenant: string, deadline: number): Promise<number[]> {
  for (;;) {
    try {
      return (await reader.execute('SELECT id FROM burst')).rows.map((r) => Number(r.id));
    } catch (err) {
      if (performance.now() > deadline) throw new Error(`${tenant} could not be read back after the failover: ${err instanceof Error ? err.message : String(err)}`);
      await sleep(AFTER_REFUSAL_MS);
    }
  }
}
