// Several real cw-db processes on one bucket, as the chart's StatefulSet runs them: each with its own ports, data
// directory and replica name, reaching the others at their loopback addresses. No vitest here: the e2e tests start
// it through database-cluster.ts, `make bench-scale-databases` directly.
import { randomBytes } from 'node:crypto';
import { ensureBucket } from '../../src/object-store/s3-buckets.ts';
import type { S3Config } from '../../src/object-store/s3-config.ts';
import { cwDbProcess, type CwDbProcess } from './cw-db-process.ts';

export interface CwDbCluster {
  readonly replicas: readonly CwDbProcess[];
  readonly adminToken: string;
  readonly bucket: string;
  stop(): Promise<void>;
}

export interface CwDbClusterOptions {
  stateDir: string;
  s3: S3Config;
  /** The replicas are `<name>-0`, `<name>-1`, … */
  name: string;
  replicas: number;
  env?: Record<string, string>;
  /** An existing bucket (a single cw-db's, to take its databases over); a new one otherwise. */
  bucket?: string;
}

/** Starts `replicas` cw-db processes sharing a bucket and an admin token; all start at once and resolve once each serves. */
export async function startCwDbCluster(options: CwDbClusterOptions): Promise<CwDbCluster> {
  const suffix = randomBytes(4).toString('hex');
  const bucket = options.bucket ?? `cw-db-${suffix}`;
  await ensureBucket(options.s3, bucket);
  const adminToken = randomBytes(32).toString('hex');
  const replicas: CwDbProcess[] = [];
  for (let i = 0; i < options.replicas; i++) {
    replicas.push(
      await cwDbProcess({ stateDir: options.stateDir, s3: options.s3, bucket, adminToken, name: `${options.name}-${i}`, suffix, replica: true, ...(options.env ? { env: options.env } : {}) }),
    );
  }
  await Promise.all(replicas.map((r) => r.start()));
  return { replicas, adminToken, bucket, stop: async () => void (await Promise.all(replicas.map((r) => r.halt({ signal: 'SIGTERM' })))) };
}
