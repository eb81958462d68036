// A real cw-db (`node bin/cw-db.ts`) for end-to-end tests, as a child process on loopback ports with a data
// directory under the run's state directory and a bucket of its own in the run's MinIO. It can be stopped the
// way a crash stops it (SIGKILL) or the way Kubernetes does (SIGTERM), its disk optionally lost, and started
// again on the same ports: database URLs handed out before stay valid.
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { ensureBucket } from '../../src/object-store/s3-buckets.ts';
import { cwDbProcess } from './cw-db-process.ts';
import type { Service } from './process.ts';

export interface DatabaseServer {
  /** Hrana base URL (`http://127.0.0.2:<port>`, an address of its own): cw-api's, cw-operator's and cw-runtime's CW_DB_URL. */
  readonly url: string;
  /** The admin API (`http://127.0.0.1:<adminPort>`): the operator's CW_DB_ADMIN_URL. */
  readonly adminUrl: string;
  readonly adminToken: string;
  readonly dataDir: string;
  readonly bucket: string;
  /** The running process; undefined while stopped. */
  readonly service: Service | undefined;
  /** CW_DB_URL, CW_DB_ADMIN_URL and CW_DB_ADMIN_TOKEN, as cw-operator reads them (cw-api needs only CW_DB_URL). */
  readonly clientEnv: Record<string, string>;
  /** Stops it with `signal` (SIGKILL: no chance to ship anything); `wipeDisk`: then deletes its data directory. */
  halt(options: { signal: 'SIGKILL' | 'SIGTERM'; wipeDisk?: boolean }): Promise<void>;
  /** Starts it again on the same ports; resolves once `/health` answers (every database restored). */
  start(): Promise<void>;
  /** `halt` then `start`. */
  restart(options: { signal: 'SIGKILL' | 'SIGTERM'; wipeDisk?: boolean }): Promise<void>;
  /** Graceful stop, for afterAll. */
  stop(): Promise<void>;
}

export interface DatabaseServerOptions {
  /** Names the log (`<name>.log`), the data directory and the bucket. */
  name: string;
  /** Extra environment, e.g. CW_DB_FLUSH_INTERVAL. */
  env?: Record<string, string>;
}

/** Starts a cw-db with its own bucket and data directory; resolves once it serves. */
export async function startDatabaseServer(options: DatabaseServerOptions): Promise<DatabaseServer> {
  const s3 = inject('s3');
  const suffix = randomBytes(4).toString('hex');
  const bucket = `cw-db-${suffix}`;
  await ensureBucket(s3, bucket);
  const adminToken = randomBytes(32).toString('hex');
  const db = await cwDbProcess({ stateDir: inject('stateDir'), s3, bucket, adminToken, name: options.name, suffix, ...(options.env ? { env: options.env } : {}) });
  await db.start();
  return {
    url: db.url,
    adminUrl: db.adminUrl,
    adminToken,
    dataDir: db.dataDir,
    bucket,
    get service() {
      return db.service;
    },
    clientEnv: { CW_DB_URL: db.url, CW_DB_ADMIN_URL: db.adminUrl, CW_DB_ADMIN_TOKEN: adminToken },
    halt: (opts) => db.halt(opts),
    start: () => db.start(),
    restart: async (opts) => {
      await db.halt(opts);
      await db.start();
    },
    stop: () => db.halt({ signal: 'SIGTERM' }),
  };
}

/** A call to `db`'s admin API with its token: the status, and the JSON answered (`{}` for none). */
export async function adminCall(db: DatabaseServer, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${db.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${db.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
