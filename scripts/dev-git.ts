// The repository service in `make dev`: two cw-git instances on one MinIO bucket (so a push through one and a
// fetch through the other shows the shared-bucket design at work), repositories created as `Repository`
// resources the operator reconciles, a read+write token for the developer, and MinIO's own bucket
// notifications posting every manifest write to the first instance's `POST /_events/notify`. Both instances have
// every role and the Kubernetes directory, so the events role raises each pushed repository's
// `cloudwright.dev/pushed-seq` annotation (the wake-up of push-to-deploy) on the notification and in its sweeps.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { mintToken } from '../git-server/auth/index.ts';
import { loadConfig } from '../git-server/config/index.ts';
import type { MinioServer, MinioWebhookTarget } from '../e2e/harness/minio.ts';
import { freePort, startService, waitForHttp, type Service } from '../e2e/harness/process.ts';
import { repoRoot, toolPath } from '../e2e/harness/tools.ts';
import { putManifestNotifications } from '../src/object-store/s3-bucket-notifications.ts';
import { ensureBucket } from '../src/object-store/s3-buckets.ts';
import { isAlreadyExists, loadKubeConnection, objectClient, NAMESPACES, type KubeObject } from '../src/kube/index.ts';

export const DEV_GIT_BUCKET = 'cloudwright-git';
/** Where `PUT /{owner}/{repo}` creates `Repository` resources in make dev. */
export const DEV_GIT_NAMESPACE = 'cloudwright-git';
const DEV_PRINCIPAL = 'developer';
/** The subject of MinIO's token: what cw-git's log names for a wake-up. */
const NOTIFY_PRINCIPAL = 'minio-notifications';
/** MinIO's webhook target: `MINIO_NOTIFY_WEBHOOK_*_CWGIT`, ARN `arn:minio:sqs::CWGIT:webhook`. */
const NOTIFY_TARGET_ID = 'CWGIT';

/** What is settled before MinIO starts: cw-git's ports, and the target MinIO's bucket notifications post to. */
export interface DevGitPlan {
  readonly ports: readonly [number, number];
  readonly notifyTarget: MinioWebhookTarget;
}

/**
 * Chooses the instances' ports and mints MinIO's token (`write`, which `POST /_events/notify` needs) with the
 * dev token secret, so MinIO can start with its webhook target before cw-git runs. No queue directory: MinIO
 * posts each manifest write at once (a queue directory is read every 3 s, and one unanswered wake-up would
 * hold back the others); a wake-up cw-git does not take is dropped with a line in minio.log, and the bridge's
 * sweeps and its own retries cover it.
 */
export async function planDevGit(stateDir: string): Promise<DevGitPlan> {
  const ports = [await freePort(), await freePort()] as const;
  const authToken = mintToken({ sub: NOTIFY_PRINCIPAL, scopes: ['write'] }, devTokenSecret(stateDir));
  return { ports, notifyTarget: { id: NOTIFY_TARGET_ID, endpoint: `http://127.0.0.1:${ports[0]}/_events/notify`, authToken } };
}

export interface DevGit {
  readonly services: Service[];
  /** What .dev/env gets: CW_GIT_URL, CW_GIT_URL_2, CW_GIT_TOKEN, CW_GIT_CONFIG, and the bucket's keys. */
  readonly env: Record<string, string>;
  /** What the operator needs to reconcile Repository resources against the same bucket. */
  readonly operatorEnv: Record<string, string>;
}

export async function startDevGit(options: { minio: MinioServer; stateDir: string; kubeconfig: string; plan: DevGitPlan }): Promise<DevGit> {
  const { minio, stateDir, kubeconfig, plan } = options;
  await ensureBucket(minio.s3, DEV_GIT_BUCKET);
  if (minio.webhookArn) await putManifestNotifications(minio.s3, DEV_GIT_BUCKET, minio.webhookArn);
  await ensureNamespace(kubeconfig);
  const { ports } = plan;
  const configPath = join(stateDir, 'cw-git.yaml');
  // Both instances read one file; each gets its own port and cache directory through SERVICE__ overrides,
  // the same way a deployment would vary them per replica.
  writeFileSync(configPath, stringify(devConfig(stateDir, minio.endpoint)), { mode: 0o600 });
  const credentials = {
    AWS_ACCESS_KEY_ID: minio.s3.credentials?.accessKeyId ?? '',
    AWS_SECRET_ACCESS_KEY: minio.s3.credentials?.secretAccessKey ?? '',
  };
  const services = ports.map((port, i) =>
    startService({
      name: `cw-git-${i + 1}`,
      command: toolPath('node'),
      args: [join(repoRoot, 'bin/cw-git.ts'), 'serve', '--config', configPath],
      logPath: join(stateDir, `cw-git-${i + 1}.log`),
      env: {
        ...process.env,
        ...credentials,
        KUBECONFIG: kubeconfig,
        SERVICE__SERVER__LISTEN: `127.0.0.1:${port}`,
        SERVICE__CACHE__DIR: join(stateDir, `cw-git-${i + 1}-cache`),
      },
    }),
  );
  const urls = ports.map((port) => `http://127.0.0.1:${port}`);
  await Promise.all(services.map((service, i) => waitForHttp(service, `${urls[i]}/healthz`, 60_000)));
  const config = loadConfig(configPath, credentials);
  const token = mintToken({ sub: DEV_PRINCIPAL, scopes: ['read', 'write'] }, config.auth.tokenSecret);
  return {
    services,
    env: { CW_GIT_URL: urls[0]!, CW_GIT_URL_2: urls[1]!, CW_GIT_TOKEN: token, CW_GIT_CONFIG: configPath, ...credentials },
    // Push to deploy: builds run as limited child processes of the operator (no node to run Jobs on here).
    // A deleted branch's preview goes a minute later here (an hour in a cluster): soon enough to watch it go.
    operatorEnv: { CW_GIT_BUCKET: DEV_GIT_BUCKET, CW_BUILD_RUNNER: 'local', CW_BUILD_WORK_DIR: join(stateDir, 'builds'), CW_PREVIEW_GRACE: '1m' },
  };
}

/** The token secret; it survives restarts so a developer's git remotes keep working. */
function devTokenSecret(stateDir: string): string {
  const secretPath = join(stateDir, 'cw-git-token-secret');
  if (!existsSync(secretPath)) writeFileSync(secretPath, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(secretPath, 'utf8').trim();
}

/** The shared configuration. */
function devConfig(stateDir: string, endpoint: string) {
  return {
    store: { bucket: DEV_GIT_BUCKET, s3: { endpoint, region: 'us-east-1', force_path_style: true, credentials: 'env' } },
    server: { listen: '127.0.0.1:8090', drain_timeout: '5s' },
    auth: { token_secret: devTokenSecret(stateDir) },
    cache: { dir: join(stateDir, 'cw-git-cache') },
    // Repositories of CW_GIT_TOKEN's making live in this namespace; a project's git tokens (`cw git token`, the
    // API's git-tokens route) reach that project's repositories, which live in its namespace.
    kubernetes: { namespace: DEV_GIT_NAMESPACE, project_tokens: true },
    // Both instances maintain (every role); a short interval so maintenance catching up after a burst of
    // pushes shows within seconds (the default is a minute).
    maintenance: { interval: '15s' },
    // Webhook receivers in make dev run on this machine (docs/examples/events-receiver): let deliveries reach
    // loopback and private addresses, which a deployment refuses by default.
    events: { allow_private_targets: true },
    // The repositories make dev lets `POST /api/initialize` copy from and `POST /api/import` read (README).
    api: { initialize_sources: ['templates/starter'], import_sources: ['acme/site'] },
  };
}

async function ensureNamespace(kubeconfig: string): Promise<void> {
  const namespaces = objectClient<KubeObject>(loadKubeConnection(kubeconfig), NAMESPACES);
  await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: DEV_GIT_NAMESPACE } }).catch((error: unknown) => {
    if (!isAlreadyExists(error)) throw error;
  });
}
