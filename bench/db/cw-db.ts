// cw-db as the benchmark runs it: the real binary (bin/cw-db.ts) on its own MinIO bucket, so every commit is
// shipped as in production, with databases created through its admin API and connection tokens.
import { hash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createRunBucket, startMinio, type MinioServer } from '../../e2e/harness/minio.ts';
import { cwDbEnv, LOCAL_DB_SQL_HOST } from '../../e2e/harness/cw-db-env.ts';
import { freePort, waitForHttp } from '../../e2e/harness/process.ts';
import { repoRoot, toolPath } from '../../e2e/harness/tools.ts';
import { spawnToFile } from '../child.ts';
import type { BenchRun } from '../run.ts';

export interface CwDb {
  /** Hrana's base URL (`db_url`). */
  readonly url: string;
  /** Where its databases are shipped. */
  readonly minio: MinioServer;
  readonly bucket: string;
  pid(): number;
  /** Creates a database and answers its `database_url` and token. */
  createDatabase(name: string, durability: 'async' | 'sync'): Promise<{ url: string; authToken: string }>;
  /** Stops cw-db (SIGTERM: what is pending is shipped), optionally deleting its disk. */
  stop(options?: { wipeDisk?: boolean }): Promise<void>;
  /** Starts it again on the same ports; resolves once it serves (every database restored). */
  start(): Promise<void>;
}

/** MinIO and cw-db in `run.stateDir`; with `cpuProfileDir`, cw-db runs under `node --cpu-prof`. */
export async function startCwDb(run: BenchRun, opts: { cpuProfileDir?: string } = {}): Promise<CwDb> {
  const minio: MinioServer = await startMinio(run.stateDir);
  run.stops.push(() => minio.service.stop());
  const bucket = await createRunBucket(minio, 'bench-db');
  const [port, adminPort] = [await freePort(), await freePort()];
  const adminToken = randomBytes(32).toString('hex');
  const dataDir = join(run.stateDir, 'cw-db-data');
  const profile = opts.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfileDir] : [];
  const url = `http://${LOCAL_DB_SQL_HOST}:${port}`;
  let service: ReturnType<typeof spawnToFile> | undefined;
  let starts = 0;
  const start = async () => {
    starts++;
    service = spawnToFile({
      name: 'cw-db',
      command: toolPath('node'),
      args: [...profile, join(repoRoot, 'bin/cw-db.ts')],
      env: {
        ...process.env,
        ...cwDbEnv({ port, adminPort, adminToken, dataDir, bucket, s3: minio.s3 }),
        CW_LOG_LEVEL: 'warn',
      },
      logPath: join(run.stateDir, `cw-db-${starts}.log`),
    });
    await waitForHttp(service, `${url}/health`, 600_000);
  };
  await start();
  run.stops.push(() => service?.stop(30_000) ?? Promise.resolve());
  return {
    url,
    minio,
    bucket,
    pid: () => service?.child.pid ?? 0,
    async createDatabase(name, durability) {
      const authToken = `cwdb_bench_${randomBytes(16).toString('hex')}`;
      const response = await fetch(`http://127.0.0.1:${adminPort}/v1/tenants/${name}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tokens: [{ sha256: hash('sha256', authToken, 'hex') }], durability }),
      });
      if (response.status !== 201) throw new Error(`cw-db answered ${response.status} to creating ${name}: ${await response.text()}`);
      return { url: `${url}/v1/${name}`, authToken };
    },
    async stop(options = {}) {
      await service?.stop(60_000);
      if (options.wipeDisk) rmSync(dataDir, { recursive: true, force: true });
    },
    start,
  };
}
