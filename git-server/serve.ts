// `cw-git serve`: builds the service from its configuration, listens, and drains on SIGTERM in the spec's two
// phases ("States and transitions"): maintenance first (running units interrupted, serving normal), then
// serving: `/readyz` turns 503, new git and LFS work is refused, in-flight requests get
// `server.drain_timeout` and 2 s more for the load balancer, then the process exits.
import { defaultConnectionLimits, guardConnections } from '../src/connection-guard.ts';
import type { FastifyInstance } from 'fastify';
import { mkdir, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { RepoCache } from './plumbing/repo-cache.ts';
import { RepoStore } from '../src/repo-store/index.ts';
// Direct imports, not the index: that one also loads the Kubernetes client.
import { BucketRepositoryDirectory } from './repositories/bucket-repository-directory.ts';
import type { RepositoryDirectory } from './repositories/repository-directory.ts';
import { buildGitServer, type GitServerLimits } from './app.ts';
import { ProjectTokens } from './auth/project-tokens.ts';
import { CacheEvictor } from './cache-evictor.ts';
import { createObjectStore, type GitServiceConfig } from './config/index.ts';
import type { ObjectStore } from '../src/object-store/object-store.ts';
import { DrainState } from './drain.ts';
import { ServiceMetrics } from './metrics.ts';
import { RuntimeStallMonitor } from './runtime-stall.ts';
import { instanceName, TaskRegistry } from './tasks/task-registry.ts';
import { maintenanceRole } from './maintenance-role.ts';
import { eventsRole } from './events/events-role.ts';
import { projectCreatorShare } from './owner-share.ts';

/** After the drain timeout, this long more so the load balancer has surely stopped sending. */
const LOAD_BALANCER_GRACE_MS = 2000;

export interface RunningService {
  readonly app: FastifyInstance;
  readonly url: string;
  /** Drains and closes (what SIGTERM does), without exiting the process. */
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly logLevel?: string;
  /** Tests: how late the event loop must run to count a stall (default 1 s), and smaller limits. */
  readonly runtimeStallThresholdMs?: number;
  readonly limits?: Partial<GitServerLimits>;
  /** Tests: the clock tokens are checked against (ms since the epoch). */
  readonly now?: () => number;
}

export async function startService(config: GitServiceConfig, options: StartOptions = {}): Promise<RunningService> {
  const registry = new Registry();
  const objects = createObjectStore(config, { registry });
  const repos = new RepoStore({ store: objects, registry, freshnessTtlMs: config.wal.freshnessTtlMs, maxRefs: config.quota.repositoryMaxRefs });
  await mkdir(config.cache.dir, { recursive: true });
  const cache = new RepoCache({ repos, dir: config.cache.dir });
  // Quarantines and LFS spool files a killed process left behind: nothing else uses them (one process owns
  // its cache directory), and the evictor does not count them.
  await rm(cache.tmpDir, { recursive: true, force: true });
  await mkdir(cache.tmpDir, { recursive: true });
  const drain = new DrainState();
  const tasks = new TaskRegistry({ instance: instanceName(config.server.listen.port) });
  const maintenance = maintenanceRole({ config, repos, objects, registry, tasks });
  const directory = await repositoryDirectory(config, repos, objects);
  const projectTokens = await projectTokenSource(config);
  const shareOf = projectTokens ? projectCreatorShare(projectTokens.source) : undefined;
  const events = await eventsRole({
    config,
    repos,
    objects,
    registry,
    ...(directory.resources ? { resources: directory.resources } : {}),
    ...(shareOf ? { shareOf } : {}),
  });
  const app = await buildGitServer(
    {
      repos,
      objects,
      // Another client, another pool of connections (the SDK's 50): LFS lookups and transfers queue behind their own.
      lfsObjects: createObjectStore(config, { registry }),
      cache,
      directory,
      auth: {
        ...config.auth,
        ...(projectTokens ? { projectTokens: new ProjectTokens(projectTokens.source) } : {}),
        ...(options.now ? { now: options.now } : {}),
      },
      metrics: new ServiceMetrics(registry),
      drain,
      serve: config.server.roles.includes('serve'),
      corsOrigins: config.server.corsOrigins,
      initializeSources: config.api.initializeSources,
      importSources: config.api.importSources,
      urlImports: {
        timeoutMs: config.api.importTimeoutMs,
        maxBytes: config.api.importMaxBytes,
        allowPrivateTargets: config.api.importAllowPrivateTargets,
        deniedTargetRanges: config.events.deniedTargetRanges,
        ...(config.api.importCaFile ? { caFile: config.api.importCaFile } : {}),
      },
      tasks,
      maintenance: maintenance.runner,
      ...(events.waker ? { events: events.waker } : {}),
      ...(events.webhooks ? { webhooks: events.webhooks } : {}),
      ...(config.server.publicUrl ? { publicUrl: config.server.publicUrl } : {}),
      limits: {
        spool: { totalBytes: config.cache.spoolMaxBytes, perOwnerBytes: config.cache.spoolMaxBytesPerOwner },
        fetches: config.server.fetches,
        writeDeadlineMs: config.api.writeDeadlineMs,
        maxRepositoryBytes: config.quota.repositoryMaxBytes,
        maxOwnerBytes: config.quota.ownerMaxBytes,
        ...options.limits,
      },
    },
    { logger: { level: options.logLevel ?? config.environment.logLevel, redact: ['req.headers.authorization'] } },
  );
  const evictor = new CacheEvictor({
    cache,
    highWatermark: config.cache.diskHighWatermark,
    ...(config.cache.maxBytes !== undefined ? { maxBytes: config.cache.maxBytes } : {}),
    intervalMs: config.cache.evictIntervalMs,
    registry,
    log: app.log,
  });
  evictor.start();
  projectTokens?.start(app.log);
  maintenance.start(app.log);
  events.start(app.log);
  const stalls = new RuntimeStallMonitor({ registry, log: app.log, ...(options.runtimeStallThresholdMs ? { thresholdMs: options.runtimeStallThresholdMs } : {}) });
  stalls.start();
  guardConnections(app.server, defaultConnectionLimits());
  await app.listen({ host: config.server.listen.host, port: config.server.listen.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.server.listen.port;
  const url = `http://${config.server.listen.host.includes(':') ? `[${config.server.listen.host}]` : config.server.listen.host}:${port}`;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Phase one, maintenance drain: no new unit starts and the running ones are interrupted (their tasks end
      // `interrupted`, the next pass redoes them); the events bridge takes no wake-up and finishes or gives up its
      // delivery (cursor unmoved); serving goes on and /readyz stays 200. At most 30 s.
      app.log.info({ running: tasks.running().length }, 'draining maintenance');
      await Promise.all([maintenance.drain(), events.drain()]);
      // Phase two, serving drain: /readyz answers 503 so the load balancer stops routing here, new git and LFS
      // work is refused with Retry-After, and what is in flight gets the drain timeout to finish.
      drain.start();
      evictor.stop();
      app.log.info({ drainTimeoutMs: config.server.drainTimeoutMs, inFlight: drain.active }, 'draining');
      await Promise.race([drain.idle(), sleep(config.server.drainTimeoutMs)]);
      await sleep(LOAD_BALANCER_GRACE_MS);
      const closed = app.close();
      app.server.closeAllConnections();
      await closed;
      stalls.stop();
      projectTokens?.source.stop();
    })());
  return { app, url, stop };
}

/** Runs the service until SIGTERM or SIGINT, then drains and exits. */
export async function serve(config: GitServiceConfig): Promise<void> {
  const service = await startService(config);
  service.app.log.info({ url: service.url }, 'cw-git serving');
  const shutdown = (signal: string) => {
    service.app.log.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

/** The platform's GitTokens and Projects, watched when `kubernetes.project_tokens` is on. */
async function projectTokenSource(config: GitServiceConfig) {
  if (!config.kubernetes.projectTokens) return undefined;
  // Loaded only when configured, as the directory below.
  const [{ KubeProjectTokenSource }, { loadKubeConnection }] = await Promise.all([import('./auth/kube-project-token-source.ts'), import('../src/kube/index.ts')]);
  let log: { warn(obj: object, msg: string): void } | undefined;
  const source = new KubeProjectTokenSource(
    loadKubeConnection(config.environment.kubeconfig, 'cw-git'),
    (err) => log?.warn({ err }, 'watch of git tokens, projects or repositories failed; retrying'),
    config.kubernetes.namespace,
  );
  return {
    source,
    start(logger: { warn(obj: object, msg: string): void }) {
      log = logger;
      source.start();
    },
  };
}

async function repositoryDirectory(config: GitServiceConfig, repos: RepoStore, objects: ObjectStore): Promise<RepositoryDirectory> {
  if (!config.kubernetes.namespace) return new BucketRepositoryDirectory(repos, { objects, maxPerOwner: config.quota.ownerMaxRepositories });
  // Loaded only when configured: a cw-git without Kubernetes never loads the Kubernetes client.
  const [{ KubeRepositoryDirectory }, { loadKubeConnection }] = await Promise.all([import('./repositories/kube-repository-directory.ts'), import('../src/kube/index.ts')]);
  return new KubeRepositoryDirectory({ kube: loadKubeConnection(config.environment.kubeconfig, 'cw-git'), namespace: config.kubernetes.namespace });
}
