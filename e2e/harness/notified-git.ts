// cw-git as make dev runs it, for tests of what a push wakes: a MinIO of its own whose bucket notifications post
// every manifest write to one cw-git instance's `POST /_events/notify` (scripts/dev-git.ts), and that instance with
// the events role and the Kubernetes repository directory, so a push raises the `cloudwright.dev/pushed-seq`
// annotation of the repository's Repository resource. The notified instance can be stopped and started again on its
// port (what MinIO posts to meanwhile is dropped, as make dev's MinIO without a queue directory does).
import { mkdirSync } from 'node:fs';
import { mintToken } from '../../git-server/auth/index.ts';
import type { RunningService } from '../../git-server/serve.ts';
import { putManifestNotifications } from '../../src/object-store/s3-bucket-notifications.ts';
import { ensureBucket } from '../../src/object-store/s3-buckets.ts';
import { newTokenSecret, startGitService, type GitServiceSetup } from './git-service.ts';
import { startMinio, type MinioServer } from './minio.ts';
import { freePort } from './process.ts';

export interface NotifiedGitOptions {
  /** Where MinIO keeps its data (a fresh directory). */
  readonly stateDir: string;
  readonly kubeconfig: string;
  /** cw-git's `kubernetes.namespace` (it must exist). */
  readonly namespace: string;
  /** The notified instance's roles. Default `[serve, events]`. */
  readonly roles?: GitServiceSetup['roles'];
  /** `events.sweep_interval` (default 5m). */
  readonly sweepInterval?: string;
}

export class NotifiedGit {
  readonly minio: MinioServer;
  /** What further instances on the same bucket start with (the notified one adds its roles). */
  readonly setup: GitServiceSetup;
  readonly port: number;
  readonly #roles: GitServiceSetup['roles'];
  #instance: RunningService | undefined;

  private constructor(minio: MinioServer, setup: GitServiceSetup, port: number, roles: GitServiceSetup['roles']) {
    this.minio = minio;
    this.setup = setup;
    this.port = port;
    this.#roles = roles;
  }

  static async start(options: NotifiedGitOptions): Promise<NotifiedGit> {
    const bucket = 'cloudwright-git';
    const tokenSecret = newTokenSecret();
    const port = await freePort();
    mkdirSync(options.stateDir, { recursive: true });
    // MinIO's token for the wake-up route (`write`), minted with the instances' secret, as make dev does.
    const authToken = mintToken({ sub: 'minio-notifications', scopes: ['write'] }, tokenSecret);
    const minio = await startMinio(options.stateDir, undefined, { webhook: { id: 'CWGIT', endpoint: `http://127.0.0.1:${port}/_events/notify`, authToken } });
    try {
      await ensureBucket(minio.s3, bucket);
      await putManifestNotifications(minio.s3, bucket, minio.webhookArn ?? '');
    } catch (err) {
      await minio.service.stop();
      throw err;
    }
    const setup: GitServiceSetup = {
      s3: minio.s3,
      bucket,
      tokenSecret,
      namespace: options.namespace,
      kubeconfig: options.kubeconfig,
      drainTimeout: '1s',
      ...(options.sweepInterval ? { sweepInterval: options.sweepInterval } : {}),
    };
    const git = new NotifiedGit(minio, setup, port, options.roles ?? ['serve', 'events']);
    await git.startNotified().catch(async (err: unknown) => {
      await minio.service.stop();
      throw err;
    });
    return git;
  }

  /** The instance MinIO posts to, while it runs. */
  get notified(): RunningService | undefined {
    return this.#instance;
  }

  async startNotified(): Promise<RunningService> {
    this.#instance ??= await startGitService({ ...this.setup, roles: this.#roles }, { port: this.port });
    return this.#instance;
  }

  async stopNotified(): Promise<void> {
    const instance = this.#instance;
    this.#instance = undefined;
    await instance?.stop();
  }

  async stop(): Promise<void> {
    await this.stopNotified();
    await this.minio.service.stop();
  }
}
