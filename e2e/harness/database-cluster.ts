// Several real cw-db processes on one bucket for end-to-end tests (cw-db-cluster.ts), in the run's state directory
// and MinIO. A replica can be SIGKILLed (its disk optionally lost) and started again on the same ports.
import { inject } from 'vitest';
import { startCwDbCluster, type CwDbCluster } from './cw-db-cluster.ts';
import type { CwDbProcess } from './cw-db-process.ts';

export type DatabaseReplica = CwDbProcess;
export type DatabaseCluster = CwDbCluster;

/**
 * Starts `replicas` cw-db processes sharing a new bucket (or `bucket`, a single cw-db's, to take its databases
 * over) and an admin token; all start at once and resolve once each serves.
 */
export function startDatabaseCluster(options: { name: string; replicas: number; env?: Record<string, string>; bucket?: string }): Promise<DatabaseCluster> {
  return startCwDbCluster({ stateDir: inject('stateDir'), s3: inject('s3'), ...options });
}
