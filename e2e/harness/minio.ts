import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ensureBucket } from '../../src/object-store/s3-buckets.ts';
import type { S3Config } from '../../src/object-store/s3-config.ts';
import { freePort, startService, waitForHttp, type Service } from './process.ts';
import { toolPath } from './tools.ts';

export interface MinioServer {
  service: Service;
  endpoint: string;
  s3: S3Config;
}

/** Starts MinIO on a free loopback port with a fresh data directory and generated root credentials. */
export async function startMinio(stateDir: string, saved?: { accessKeyId: string; secretAccessKey: string }): Promise<MinioServer> {
  const dataDir = join(stateDir, 'minio');
  mkdirSync(dataDir, { recursive: true });
  const [port, consolePort] = [await freePort(), await freePort()];
  // MinIO keeps its IAM data encrypted with the root credentials, so a kept data directory needs the same ones.
  const credentials = saved ?? { accessKeyId: 'cw-' + randomBytes(6).toString('hex'), secretAccessKey: randomBytes(24).toString('hex') };
  const service = startService({
    name: 'minio',
    command: toolPath('minio'),
    args: ['server', dataDir, '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`, '--quiet'],
    logPath: join(stateDir, 'minio.log'),
    env: {
      ...process.env,
      MINIO_ROOT_USER: credentials.accessKeyId,
      MINIO_ROOT_PASSWORD: credentials.secretAccessKey,
      MINIO_BROWSER: 'off',
      MINIO_UPDATE: 'off',
    },
  });
  const endpoint = `http://127.0.0.1:${port}`;
  await waitForHttp(service, `${endpoint}/minio/health/live`, 30_000);
  return { service, endpoint, s3: { endpoint, region: 'us-east-1', forcePathStyle: true, credentials } };
}

/** A bucket of its own for one test run or one dev session. */
export async function createRunBucket(minio: MinioServer, prefix: string): Promise<string> {
  const bucket = `${prefix}-${randomBytes(4).toString('hex')}`;
  await ensureBucket(minio.s3, bucket);
  return bucket;
}
