// A real cw-db (`node bin/cw-db.ts`) for end-to-end tests, as a child process on loopback ports with a data
// directory under the run's state directory and a bucket of its own in the run's MinIO. It can be stopped the
// way a crash stops it (SIGKILL) or the way Kubernetes does (SIGTERM), its disk optionally lost, and started
// again on the same ports: database URLs handed out before stay valid.
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { cwDbEnv, LOCAL_DB_SQL_HOST } from './cw-db-env.ts';
import { ensureBucket } from '../../src/object-store/s3-buckets.ts';
import { freePort, killHard, startService, waitForHttp, type Service } from './process.ts';
import { repoRoot, toolPath } from './tools.ts';

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
  const stateDir = inject('stateDir');
  const s3 = inject('s3');
  const suffix = randomBytes(4).toString('hex');
  const bucket = `cw-db-${suffix}`;
  await ensureBucket(s3, bucket);
  const dataDir = join(stateDir, `${options.name}-${suffix}-data`);
  const [port, adminPort] = [await freePort(), await freePort()];
  const adminToken = randomBytes(32).toString('hex');
  const url = `http://${LOCAL_DB_SQL_HOST}:${port}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...cwDbEnv({ port, adminPort, adminToken, dataDir, bucket, s3 }),
    CW_LOG_LEVEL: 'info',
    ...options.env,
  };
  let service: Service | undefined;

  const start = async () => {
    mkdirSync(dataDir, { recursive: true });
    const started = startService({
      name: options.name,
      command: toolPath('node'),
      args: [join(repoRoot, 'bin/cw-db.ts')],
      logPath: join(stateDir, `${options.name}-${suffix}.log`),
      env,
    });
    service = started;
    try {
      await waitForHttp(started, `${url}/health`, 60_000);
    } catch (err) {
      await started.stop(1_000);
      service = undefined;
      throw err;
    }
  };
  const halt = async ({ signal, wipeDisk = false }: { signal: 'SIGKILL' | 'SIGTERM'; wipeDisk?: boolean }) => {
    const running = service;
    service = undefined;
    if (running) await (signal === 'SIGKILL' ? killHard(running) : running.stop(30_000));
    if (wipeDisk) rmSync(dataDir, { recursive: true, force: true });
  };

  await start();
  return {
    url,
    adminUrl,
    adminToken,
    dataDir,
    bucket,
    get service() {
      return service;
    },
    clientEnv: { CW_DB_URL: url, CW_DB_ADMIN_URL: adminUrl, CW_DB_ADMIN_TOKEN: adminToken },
    halt,
    start,
    restart: async (opts) => {
      await halt(opts);
      await start();
    },
    stop: () => halt({ signal: 'SIGTERM' }),
  };
}
