// cw-git instances for end-to-end tests: in-process (`startGitService`) for most tests, or as a real child
// process of `bin/cw-git.ts serve` (`spawnGitService`) where the test must kill it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { S3Config } from '../../src/object-store/s3-config.ts';
import { parseConfig } from '../../git-server/config/index.ts';
import { startService as startGitServer, type RunningService } from '../../git-server/serve.ts';
import { freePort, onFreePorts, startService, waitForHttp, type Service } from './process.ts';

export interface GitServiceSetup {
  readonly s3: S3Config;
  readonly bucket: string;
  /** Shared by instances that should accept each other's tokens. */
  readonly tokenSecret: string;
  readonly drainTimeout?: string;
  /**
   * `kubernetes.namespace`: repositories are `Repository` resources (the Kubernetes directory) of the apiserver of
   * `kubeconfig`; with the `events` role too, each push raises its resource's `cloudwright.dev/pushed-seq`.
   */
  readonly namespace?: string;
  readonly kubeconfig?: string;
  /** `events.sweep_interval` (default 5m; `0`: one sweep at start only). */
  readonly sweepInterval?: string;
  /** `events.allow_private_targets`: webhooks may post to a receiver on loopback. */
  readonly allowPrivateTargets?: boolean;
  /** `events.denied_target_ranges`: where neither webhooks nor URL imports go, whatever else is allowed. */
  readonly deniedTargetRanges?: readonly string[];
  /**
   * `kubernetes.project_tokens` against this kubeconfig: accept the platform's per-project git tokens. `namespace`: cw-git's
   * own (its Repository resources, which keep a project's token off its repositories), required with them as by the config.
   */
  readonly projectTokens?: { readonly kubeconfig: string; readonly namespace: string };
  /** `server.cors_origins`: browser origins allowed on the `/api-browser` lane. */
  readonly corsOrigins?: readonly string[];
  /** `api.initialize_sources` and `api.import_sources`: repositories initialize and import may copy from. */
  readonly initializeSources?: readonly string[];
  readonly importSources?: readonly string[];
  /** `api.import_timeout`, `api.import_max_size`, `api.import_allow_private_targets`, `api.import_ca_file`. */
  readonly urlImports?: { readonly timeout?: string; readonly maxSize?: string; readonly allowPrivateTargets?: boolean; readonly caFile?: string };
  /** `cache.spool_max_size_per_owner`: what one owner's pushes, uploads and imports may hold on the disk at once. */
  readonly spoolPerOwner?: string;
  /** `wal.freshness_ttl`: how long a read may answer from a head checked that long ago (default 0s: never). */
  readonly freshnessTtl?: string;
  /**
   * `server.roles`. Default `[serve]`: tests share one bucket, and a maintainer would compact other tests'
   * repositories under them. Maintenance tests opt in, on a bucket of their own.
   */
  readonly roles?: readonly ('serve' | 'maintain' | 'events')[];
  /** `maintenance.interval`, `maintenance.grace_period` and `maintenance.log_retention`. */
  readonly maintenance?: { readonly interval?: string; readonly gracePeriod?: string; readonly logRetention?: string };
}

export const newTokenSecret = (): string => randomBytes(32).toString('hex');

/** The configuration file of one instance (its own cache directory and port) and the environment it needs. */
export async function gitServiceConfig(setup: GitServiceSetup, port = 0): Promise<{ path: string; text: string; env: Record<string, string>; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'cw-git-instance-'));
  const config = {
    store: { bucket: setup.bucket, s3: { endpoint: setup.s3.endpoint, region: setup.s3.region, force_path_style: true, credentials: 'env' } },
    server: {
      listen: `127.0.0.1:${port}`,
      drain_timeout: setup.drainTimeout ?? '5s',
      roles: [...(setup.roles ?? ['serve'])],
      ...(setup.corsOrigins ? { cors_origins: [...setup.corsOrigins] } : {}),
    },
    auth: { token_secret: setup.tokenSecret },
    // Every test's repositories are under one owner (`e2e/`) of the run's shared bucket, and stay: far more than
    // an owner may have by default.
    quota: { owner_max_repositories: 100_000 },
    ...(setup.initializeSources || setup.importSources || setup.urlImports
      ? {
          api: {
            initialize_sources: [...(setup.initializeSources ?? [])],
            import_sources: [...(setup.importSources ?? [])],
            ...(setup.urlImports?.timeout ? { import_timeout: setup.urlImports.timeout } : {}),
            ...(setup.urlImports?.maxSize ? { import_max_size: setup.urlImports.maxSize } : {}),
            ...(setup.urlImports?.allowPrivateTargets !== undefined ? { import_allow_private_targets: setup.urlImports.allowPrivateTargets } : {}),
            ...(setup.urlImports?.caFile ? { import_ca_file: setup.urlImports.caFile } : {}),
          },
        }
      : {}),
    cache: { dir: join(dir, 'cache'), ...(setup.spoolPerOwner ? { spool_max_size_per_owner: setup.spoolPerOwner } : {}) },
    ...(setup.freshnessTtl ? { wal: { freshness_ttl: setup.freshnessTtl } } : {}),
    ...(setup.maintenance
      ? {
          maintenance: {
            ...(setup.maintenance.interval ? { interval: setup.maintenance.interval } : {}),
            ...(setup.maintenance.gracePeriod ? { grace_period: setup.maintenance.gracePeriod } : {}),
            ...(setup.maintenance.logRetention ? { log_retention: setup.maintenance.logRetention } : {}),
          },
        }
      : {}),
    ...(setup.sweepInterval || setup.allowPrivateTargets || setup.deniedTargetRanges
      ? {
          events: {
            ...(setup.sweepInterval ? { sweep_interval: setup.sweepInterval } : {}),
            ...(setup.allowPrivateTargets ? { allow_private_targets: true } : {}),
            ...(setup.deniedTargetRanges ? { denied_target_ranges: setup.deniedTargetRanges } : {}),
          },
        }
      : {}),
    ...(setup.namespace || setup.projectTokens ? { kubernetes: { namespace: setup.namespace ?? setup.projectTokens?.namespace, ...(setup.projectTokens ? { project_tokens: true } : {}) } } : {}),
  };
  const text = stringify(config);
  const path = join(dir, 'cw-git.yaml');
  await writeFile(path, text);
  const env = {
    AWS_ACCESS_KEY_ID: setup.s3.credentials?.accessKeyId ?? '',
    AWS_SECRET_ACCESS_KEY: setup.s3.credentials?.secretAccessKey ?? '',
    ...(setup.kubeconfig || setup.projectTokens ? { KUBECONFIG: setup.kubeconfig ?? setup.projectTokens?.kubeconfig ?? '' } : {}),
  };
  return { path, text, env, dir };
}

/** One cw-git instance in this process, on `port` (default a free one); `now` is the clock it checks tokens against. */
export async function startGitService(setup: GitServiceSetup, options: { now?: () => number; port?: number } = {}): Promise<RunningService> {
  const { text, env, dir } = await gitServiceConfig(setup, options.port);
  const config = parseConfig(text, env, { source: 'test config', baseDir: dir });
  return startGitServer(config, { logLevel: 'warn', ...(options.now ? { now: options.now } : {}) });
}

/** One cw-git instance as a child process (`node bin/cw-git.ts serve --config …`). */
export function spawnGitService(setup: GitServiceSetup): Promise<{ service: Service; url: string; dir: string }> {
  return spawnCwGit('cw-git', (port) => gitServiceConfig(setup, port), 'warn');
}

/**
 * `node bin/cw-git.ts serve` with the configuration `configFor` writes for a port `freePort` picked; on a new port
 * if another process took that one before cw-git listened.
 */
export async function spawnCwGit(
  name: string,
  configFor: (port: number) => Promise<{ path: string; env: Record<string, string>; dir: string }>,
  logLevel: 'warn' | 'info',
): Promise<{ service: Service; url: string; dir: string }> {
  return onFreePorts(
    async () => {
      const port = await freePort();
      const { path, env, dir } = await configFor(port);
      const service = startService({
        name,
        command: process.execPath,
        args: ['bin/cw-git.ts', 'serve', '--config', path],
        logPath: join(dir, 'cw-git.log'),
        env: { ...process.env, ...env, CW_LOG_LEVEL: logLevel },
      });
      return { service, url: `http://127.0.0.1:${port}`, dir };
    },
    async ({ service, url }) => {
      try {
        await waitForHttp(service, `${url}/healthz`, 30_000);
      } catch (err) {
        await service.stop(1_000);
        throw err;
      }
    },
    () => {},
  );
}
