// One real cw-db (`node bin/cw-db.ts`) on loopback ports, its data directory and log under a state directory, on a
// bucket of the given store: what the e2e harness (database-server.ts, database-cluster.ts) and the benches start.
// No vitest here, so a bench can use it. It can be SIGKILLed (its disk optionally lost) and started again on the
// same ports, so URLs handed out before stay valid.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { S3Config } from '../../src/object-store/s3-config.ts';
import { cwDbEnv, LOCAL_DB_SQL_HOST } from './cw-db-env.ts';
import { freePort, killHard, portTaken, startService, waitForHttp, type Service } from './process.ts';
import { repoRoot, toolPath } from './tools.ts';

export interface CwDbProcess {
  /** Names its log and data directory; CW_DB_REPLICA_NAME when it runs as a replica. */
  readonly name: string;
  /** Hrana's base URL (`http://127.0.0.2:<port>`). */
  readonly url: string;
  readonly adminUrl: string;
  readonly dataDir: string;
  /** Its log (JSON lines). */
  readonly logPath: string;
  /** The running process; undefined while stopped. */
  readonly service: Service | undefined;
  /** Stops it with `signal` (SIGKILL: no chance to ship anything, its shard processes killed too); `wipeDisk`: then deletes its data directory. */
  halt(options: { signal: 'SIGKILL' | 'SIGTERM'; wipeDisk?: boolean }): Promise<void>;
  /** Starts it (again, on the same ports); resolves once `/health` answers. */
  start(): Promise<void>;
}

export interface CwDbProcessOptions {
  stateDir: string;
  s3: S3Config;
  bucket: string;
  adminToken: string;
  /** Names the log (`<name>-<suffix>.log`) and the data directory. */
  name: string;
  /** Tells runs apart in one state directory. */
  suffix: string;
  /** One of several replicas on the bucket (CW_DB_REPLICA_NAME = `name`, reached at its own URLs). */
  replica?: boolean;
  /** Extra environment (a lease duration, a shard count); wins over the rest. */
  env?: Record<string, string>;
}

/** Picks the ports and paths of a cw-db; `start()` starts it (its first start on new ports if another process took one). */
export async function cwDbProcess(options: CwDbProcessOptions): Promise<CwDbProcess> {
  const { stateDir, name, suffix } = options;
  const dataDir = join(stateDir, `${name}-${suffix}-data`);
  const logPath = join(stateDir, `${name}-${suffix}.log`);
  const listen = async () => {
    const [port, adminPort] = [await freePort(), await freePort()];
    const url = `http://${LOCAL_DB_SQL_HOST}:${port}`;
    const adminUrl = `http://127.0.0.1:${adminPort}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...cwDbEnv({ port, adminPort, adminToken: options.adminToken, dataDir, bucket: options.bucket, s3: options.s3 }),
      CW_LOG_LEVEL: 'info',
      ...(options.replica ? { CW_DB_REPLICA_NAME: name, CW_DB_REPLICA_URL: url, CW_DB_REPLICA_ADMIN_URL: adminUrl } : {}),
      ...options.env,
    };
    return { url, adminUrl, env };
  };
  let at = await listen();
  let service: Service | undefined;
  /** Once it has served, a restart keeps its URLs (whoever holds them must still reach it): only a first start moves. */
  let served = false;
  return {
    name,
    get url() {
      return at.url;
    },
    get adminUrl() {
      return at.adminUrl;
    },
    dataDir,
    logPath,
    get service() {
      return service;
    },
    async start() {
      mkdirSync(dataDir, { recursive: true });
      for (let attempt = 1; ; attempt++) {
        const started = startService({ name, command: toolPath('node'), args: [join(repoRoot, 'bin/cw-db.ts')], logPath, env: at.env });
        service = started;
        try {
          await waitForHttp(started, `${at.url}/health`, 60_000);
          served = true;
          return;
        } catch (err) {
          await started.stop(1_000);
          service = undefined;
          if (served || !portTaken(err, started) || attempt >= 3) throw err;
          at = await listen();
        }
      }
    },
    async halt({ signal, wipeDisk = false }) {
      const running = service;
      service = undefined;
      if (running) await (signal === 'SIGKILL' ? killHard(running) : running.stop(30_000));
      if (wipeDisk) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
