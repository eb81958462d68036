import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { minioWebhookArn } from '../../src/object-store/s3-bucket-notifications.ts';
import { ensureBucket } from '../../src/object-store/s3-buckets.ts';
import type { S3Config } from '../../src/object-store/s3-config.ts';
import { freePort, startService, waitForHttp, type Service } from './process.ts';
import { toolPath } from './tools.ts';

export interface MinioServer {
  service: Service;
  endpoint: string;
  s3: S3Config;
  /** The queue ARN of the webhook target, when started with one: what a bucket notification configuration names. */
  webhookArn?: string;
}

/**
 * A webhook notification target (MinIO's `notify_webhook:<id>`, set through `MINIO_NOTIFY_WEBHOOK_*_<id>`).
 * MinIO connects to it lazily: the server starts, and bucket notification configurations naming it are
 * accepted, while nothing listens at `endpoint` yet. Each matching object event is one POST.
 */
export interface MinioWebhookTarget {
  /** The target's name; its ARN is `arn:minio:sqs::<id>:webhook`. Letters, digits and `_`. */
  id: string;
  /** Where MinIO POSTs each event: one JSON object `{EventName, Key, Records: [record]}` per object event. */
  endpoint: string;
  /** Sent as `Authorization: Bearer <authToken>` (a value with one space, `<scheme> <credentials>`, is sent as it is). */
  authToken?: string;
  /**
   * Without one (the default) MinIO posts each event at once, and drops one the target does not answer 2xx
   * (refused connection, 404, 503, …) with a line in its log. With one, events are written there first and
   * sent from it, oldest first, by a loop that looks every 3 s: they survive the target being down and a
   * restart, an event not answered 2xx is retried every 3 s and the ones behind it wait. A relative path is
   * taken from the working directory (MinIO wants it absolute).
   */
  queueDir?: string;
  /** With `queueDir`: events kept at most (more are dropped, with a line in the log); MinIO's default is 100000. */
  queueLimit?: number;
}

export interface MinioOptions {
  /** Also start with this webhook notification target (no target otherwise). */
  webhook?: MinioWebhookTarget;
  /** The local address to listen on: 127.0.0.1 unless pods of the local node must reach it. */
  host?: string;
}

/** Starts MinIO on a free port with a fresh data directory and generated root credentials. */
export async function startMinio(stateDir: string, saved?: { accessKeyId: string; secretAccessKey: string }, options: MinioOptions = {}): Promise<MinioServer> {
  const dataDir = join(stateDir, 'minio');
  mkdirSync(dataDir, { recursive: true });
  const [port, consolePort] = [await freePort(), await freePort()];
  const host = options.host ?? '127.0.0.1';
  // MinIO keeps its IAM data encrypted with the root credentials, so a kept data directory needs the same ones.
  const credentials = saved ?? { accessKeyId: 'cw-' + randomBytes(6).toString('hex'), secretAccessKey: randomBytes(24).toString('hex') };
  const service = startService({
    name: 'minio',
    command: toolPath('minio'),
    args: ['server', dataDir, '--address', `${host}:${port}`, '--console-address', `127.0.0.1:${consolePort}`, '--quiet'],
    logPath: join(stateDir, 'minio.log'),
    env: {
      ...process.env,
      MINIO_ROOT_USER: credentials.accessKeyId,
      MINIO_ROOT_PASSWORD: credentials.secretAccessKey,
      MINIO_BROWSER: 'off',
      MINIO_UPDATE: 'off',
      ...(options.webhook ? webhookEnv(options.webhook) : {}),
    },
  });
  const endpoint = `http://${host}:${port}`;
  await waitForHttp(service, `${endpoint}/minio/health/live`, 30_000);
  return {
    service,
    endpoint,
    s3: { endpoint, region: 'us-east-1', forcePathStyle: true, credentials },
    ...(options.webhook ? { webhookArn: minioWebhookArn(options.webhook.id) } : {}),
  };
}

function webhookEnv(target: MinioWebhookTarget): Record<string, string> {
  if (!/^\w+$/.test(target.id)) throw new Error(`a MinIO webhook target id is letters, digits and _: ${target.id}`);
  const env: Record<string, string> = {
    [`MINIO_NOTIFY_WEBHOOK_ENABLE_${target.id}`]: 'on',
    [`MINIO_NOTIFY_WEBHOOK_ENDPOINT_${target.id}`]: target.endpoint,
  };
  if (target.authToken !== undefined) env[`MINIO_NOTIFY_WEBHOOK_AUTH_TOKEN_${target.id}`] = target.authToken;
  if (target.queueDir !== undefined) {
    const queueDir = resolve(target.queueDir);
    mkdirSync(queueDir, { recursive: true });
    env[`MINIO_NOTIFY_WEBHOOK_QUEUE_DIR_${target.id}`] = queueDir;
  }
  if (target.queueLimit !== undefined) env[`MINIO_NOTIFY_WEBHOOK_QUEUE_LIMIT_${target.id}`] = String(target.queueLimit);
  return env;
}

/** A bucket of its own for one test run or one dev session. */
export async function createRunBucket(minio: MinioServer, prefix: string): Promise<string> {
  const bucket = `${prefix}-${randomBytes(4).toString('hex')}`;
  await ensureBucket(minio.s3, bucket);
  return bucket;
}
