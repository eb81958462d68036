// Several real cw-db processes (`node bin/cw-db.ts`) on one bucket, as the chart's StatefulSet runs them: each
// with its own ports, data directory and replica name, reaching the others at their loopback addresses. A replica
// can be SIGKILLed (its disk optionally lost) and started again on the same ports.
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { cwDbEnv, LOCAL_DB_SQL_HOST } from './cw-db-env.ts';
import { ensureBucket } from '../../src/object-store/s3-buckets.ts';
import { freePort, killHard, startService, waitForHttp, type Service } from './process.ts';
import { repoRoot, toolPath } from './tools.ts';

export interface DatabaseReplica {
  /** CW_DB_REPLICA_NAME. */
  readonly name: string;
  /** Hrana's base URL: any replica's serves every database (forwarded to its owner). */
  readonly url: string;
  readonly adminUrl: string;
  readonly dataDir: string;
  /** Its log (JSON lines). */
  readonly logPath: string;
  readonly service: Service | undefined;
  halt(options: { signal: 'SIGKILL' | 'SIGTERM'; wipeDisk?: boolean }): Promise<void>;
  start(): Promise<void>;
}

export interface DatabaseCluster {
  readonly replicas: readonly DatabaseReplica[];
  readonly adminToken: string;
  readonly bucket: string;
  stop(): Promise<void>;
}

/**
 * Starts `replicas` cw-db processes sharing a new bucket (or `bucket`, a single cw-db's, to take its databases
 * over) and an admin token; all start at once and resolve once each serves.
 */
export async function startDatabaseCluster(options: { name: string; replicas: number; env?: Record<string, string>; bucket?: string }): Promise<DatabaseCluster> {
  const stateDir = inject('stateDir');
  const s3 = inject('s3');
  const suffix = randomBytes(4).toString('hex');
  const bucket = options.bucket ?? `cw-db-${suffix}`;
  await ensureBucket(s3, bucket);
  const adminToken = randomBytes(32).toString('hex');
  const replicas: DatabaseReplica[] = [];
  for (let i = 0; i < options.replicas; i++) {
    const name = `${options.name}-${i}`;
    const [port, adminPort] = [await freePort(), await freePort()];
    const dataDir = join(stateDir, `${name}-${suffix}-data`);
    const url = `http://${LOCAL_DB_SQL_HOST}:${port}`;
    const adminUrl = `http://127.0.0.1:${adminPort}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...cwDbEnv({ port, adminPort, adminToken, dataDir, bucket, s3 }),
      CW_LOG_LEVEL: 'info',
      CW_DB_REPLICA_NAME: name,
      CW_DB_REPLICA_URL: url,
      CW_DB_REPLICA_ADMIN_URL: adminUrl,
      ...options.env,
    };
    let service: Service | undefined;
    const logPath = join(stateDir, `${name}-${suffix}.log`);
    const start = async () => {
      mkdirSync(dataDir, { recursive: true });
      const started = startService({ name, command: toolPath('node'), args: [join(repoRoot, 'bin/cw-db.ts')], logPath, env });
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
    replicas.push({
      name,
      url,
      adminUrl,
      dataDir,
      logPath,
      get service() {
        return service;
      },
      halt,
      start,
    });
  }
  await Promise.all(replicas.map((r) => r.start()));
  return { replicas, adminToken, bucket, stop: async () => void (await Promise.all(replicas.map((r) => r.halt({ signal: 'SIGTERM' })))) };
}
