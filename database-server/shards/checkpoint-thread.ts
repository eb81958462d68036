// A worker thread of a shard that checkpoints one database's large WAL on a connection of its own (big-checkpoints.ts),
// so the shard's thread goes on running other tenants' statements meanwhile.
import { parentPort, workerData } from 'node:worker_threads';
import { Connection } from '../sql/libsql-native.ts';
import { ENGINE_SETTINGS } from '../sql/libsql-engine.ts';

/** What the thread is given: the database file. */
export interface CheckpointJob {
  readonly databasePath: string;
}

const { databasePath } = workerData as CheckpointJob;
const db = new Connection(databasePath);
try {
  // The tenant's own connection is idle (its lock is held), so the only reader to wait for is a statement just ending.
  db.pragma('busy_timeout = 1000');
  db.pragma(`synchronous = ${ENGINE_SETTINGS.synchronous}`);
  db.pragma('wal_checkpoint(TRUNCATE)');
} finally {
  db.close();
}
parentPort?.postMessage('done');
