// The database engine in `make dev`: one cw-db with its data in .dev/state/cw-db and its copies in its own MinIO
// bucket, so stopping make dev, deleting .dev/state/cw-db and starting again shows a restore from the bucket.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cwDbEnv, LOCAL_DB_SQL_HOST } from '../e2e/harness/cw-db-env.ts';
import type { MinioServer } from '../e2e/harness/minio.ts';
import { freePort, startService, waitForHttp, type Service } from '../e2e/harness/process.ts';
import { repoRoot, toolPath } from '../e2e/harness/tools.ts';
import { ensureBucket } from '../src/object-store/s3-buckets.ts';

export const DEV_DB_BUCKET = 'cloudwright-db';

export interface DevDb {
  readonly service: Service;
  /** What .dev/env gets: CW_DB_URL. */
  readonly env: Record<string, string>;
  /** What the operator needs: CW_DB_URL, CW_DB_ADMIN_URL, CW_DB_ADMIN_TOKEN. */
  readonly operatorEnv: Record<string, string>;
}

/**
 * The SQL endpoint make dev's cw-db will have (CW_DB_PORT, else the port of the last run while it is free), known
 * before it starts: the runtime is told it at its own start (the one private address apps may reach).
 */
export async function devDbUrl(stateDir: string): Promise<string> {
  return `http://${LOCAL_DB_SQL_HOST}:${process.env.CW_DB_PORT ?? (await savedPort(stateDir))}`;
}

/** Starts cw-db with its SQL endpoint at `url` (`devDbUrl`); resolves once it serves. */
export async function startDevDb(options: { minio: MinioServer; stateDir: string; url: string }): Promise<DevDb> {
  const { minio, stateDir, url } = options;
  await ensureBucket(minio.s3, DEV_DB_BUCKET);
  const [port, adminPort] = [Number(new URL(url).port), await freePort()];
  const adminToken = savedAdminToken(stateDir);
  const service = startService({
    name: 'cw-db',
    command: toolPath('node'),
    args: [join(repoRoot, 'bin/cw-db.ts')],
    logPath: join(stateDir, 'cw-db.log'),
    env: { ...process.env, ...cwDbEnv({ port, adminPort, adminToken, dataDir: join(stateDir, 'cw-db'), bucket: DEV_DB_BUCKET, s3: minio.s3 }) },
  });
  await waitForHttp(service, `${url}/health`, 120_000);
  return {
    service,
    env: { CW_DB_URL: url },
    operatorEnv: { CW_DB_URL: url, CW_DB_ADMIN_URL: `http://127.0.0.1:${adminPort}`, CW_DB_ADMIN_TOKEN: adminToken, CW_DB_USAGE_REFRESH_SECONDS: '5', CW_DB_USAGE_SAMPLE_SECONDS: '60' },
  };
}

/**
 * The SQL endpoint's port, kept across runs while it is free: it is part of every database_url handed out, so a
 * script that saved one keeps working after make dev restarts.
 */
async function savedPort(stateDir: string): Promise<number> {
  const path = join(stateDir, 'cw-db-port');
  const saved = existsSync(path) ? Number(readFileSync(path, 'utf8')) : undefined;
  if (saved !== undefined && (await isFree(saved))) return saved;
  const port = await freePort();
  writeFileSync(path, String(port));
  return port;
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, LOCAL_DB_SQL_HOST, () => server.close(() => resolve(true)));
  });
}

/** The admin token, kept across runs (only cw-db and the operator use it; both are restarted together anyway). */
function savedAdminToken(stateDir: string): string {
  const path = join(stateDir, 'cw-db-admin-token');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const token = randomBytes(32).toString('hex');
  writeFileSync(path, token, { mode: 0o600 });
  return token;
}
