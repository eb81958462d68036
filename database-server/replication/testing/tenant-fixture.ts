// Test helper: a tenant database opened the way the engine will open it (WAL, no automatic checkpoints, one
// connection), with its replica, a hand-driven clock and the capture-after-commit discipline of the tenant lock.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { Connection } from '../../sql/libsql-native.ts';
import { restoreDatabase } from '../restore.ts';
import { TenantReplica, type TenantReplicaOptions } from '../tenant-replica.ts';

type LibsqlDatabase = Connection;

function open(file: string): LibsqlDatabase {
  return new Connection(file);
}

export function openTenantDb(dbPath: string): LibsqlDatabase {
  const db = open(dbPath);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  return db;
}

export class ManualClock {
  time = 1_000_000;
  readonly now = (): number => this.time;
  /** Moves the clock on and answers the new time. */
  tick(ms = 1000): number {
    this.time += ms;
    return this.time;
  }
}

export class TenantFixture {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'cw-replica-'));
  readonly dbPath = path.join(this.dir, 'tenant.db');
  readonly tenant = 'tenant';
  /** Its own unless `options.prefix` names another fixture's (two owners of one tenant in turn). */
  readonly prefix: string;
  readonly clock = new ManualClock();
  readonly store: ObjectStore;
  db: LibsqlDatabase;
  replica: TenantReplica;

  constructor(store: ObjectStore, options: Partial<TenantReplicaOptions> = {}) {
    this.store = store;
    this.prefix = options.prefix ?? `replica-test/${randomBytes(4).toString('hex')}/`;
    this.db = openTenantDb(this.dbPath);
    this.replica = this.#newReplica(options);
  }

  readonly checkpoint = (): void => {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  };

  /** What a process start does: a new replica object, a new generation. */
  async startGeneration(options: Partial<TenantReplicaOptions> = {}): Promise<void> {
    this.replica = this.#newReplica(options);
    await (
      await this.replica.startGeneration(this.checkpoint)
    ).upload;
  }

  /** Runs SQL as one pipeline would, then captures as the lock holder does after it. */
  async run(sql: string): Promise<boolean> {
    this.db.exec(sql);
    return (await this.replica.capture()) !== undefined;
  }

  /** Restores into a fresh file of this fixture's directory and answers its rows of `table`, checked by SQLite. */
  async restoreRows(options: { at?: number; store?: ObjectStore } = {}): Promise<{ restoredTo: number | undefined; rows: unknown[] }> {
    const target = path.join(this.dir, `restored-${randomBytes(4).toString('hex')}.db`);
    const result = await restoreDatabase({ store: options.store ?? this.store, prefix: this.prefix, tenant: this.tenant, targetPath: target, ...(options.at === undefined ? {} : { at: options.at }) });
    const db = open(target);
    try {
      // libsql's pluck() applies to all() but not to get(): raw rows are arrays everywhere.
      const check = (db.prepare('PRAGMA integrity_check').raw(true).get() as unknown[])[0];
      if (check !== 'ok') throw new Error(`integrity_check: ${String(check)}`);
      const hasTable = db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 't'").get() !== undefined;
      const rows = hasTable ? db.prepare('SELECT v FROM t ORDER BY rowid').pluck().all() : [];
      return { restoredTo: result?.restoredTo, rows };
    } finally {
      db.close();
    }
  }

  close(): void {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  #newReplica(options: Partial<TenantReplicaOptions>): TenantReplica {
    return new TenantReplica({ store: this.store, tenant: this.tenant, dbPath: this.dbPath, now: this.clock.now, ...options, prefix: this.prefix });
  }
}
