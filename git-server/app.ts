// The `cw-git` HTTP surface: plugins first, then every route, registered explicitly. `serve.ts` builds the
// dependencies from the configuration and owns listening and drain.
import { DEFAULT_LARGE_BODY_BOUNDS, largeBodies, type LargeBodyBounds } from './large-bodies.ts';
import { SpoolBudget, type SpoolBounds } from './plumbing/spool-budget.ts';
import { StorageQuota } from './plumbing/storage-quota.ts';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { requestId, requestIdOptions } from '../src/fastify-plugins/request-id.ts';
import type { ObjectStore } from '../src/object-store/object-store.ts';
import type { RepoCache } from './plumbing/repo-cache.ts';
import type { RepoPath, RepoStore } from '../src/repo-store/index.ts';
import type { MaintenanceRunner } from '../src/repo-maintenance/operation.ts';
import type { RepositoryDirectory } from './repositories/repository-directory.ts';
import { gitAuth, type GitAuthOptions } from './auth/index.ts';
import { drainGate, type DrainState } from './drain.ts';
import { errorHandler, gitFrameworkErrorOptions, schemaErrorFormatter } from './errors.ts';
import { lfsRoutes } from './lfs/index.ts';
import { ReadTurns } from './repo-api/repo-read.ts';
import { DEFAULT_WRITE_BOUNDS, DEFAULT_WRITE_DEADLINE_MS, writeTurns } from './repo-api/write/write-turns.ts';
import { fetchesGauge, inflightGauge, isPushRequest, type ServiceMetrics } from './metrics.ts';
import { gitHttpRoutes } from './routes/git-http.ts';
import { healthRoutes } from './routes/health.ts';
import { repositoryRoutes } from './routes/repositories.ts';
import { repoApiRoutes } from './repo-api/index.ts';
import { READ_ROUTES } from './repo-api/read-routes.ts';
import { WRITE_ROUTES } from './repo-api/write-routes.ts';
import { OPS_ROUTES } from './repo-api/ops-routes.ts';
import type { RepoWebhooksApi } from './repo-api/hooks.ts';
import { ArchiveSpool } from './repo-api/archive-spool.ts';
import { browserLane } from './repo-api/browser-lane.ts';
import { discoveryRoutes } from './repo-api/discovery.ts';
import { eventsNotifyRoute, type EventsWaker } from './events/notify-route.ts';
import { gitOpenApi } from './openapi.ts';
import { TaskRegistry } from './tasks/task-registry.ts';
import type { UrlImports } from './repo-api/dependencies.ts';
import { IMPORT_POLICY_SETTINGS } from './import/remote-source.ts';
import { SourcePatterns } from './import/source-url.ts';
import { TargetPolicy } from '../src/target-policy.ts';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_FETCH_BOUNDS, FetchSlots, type FetchBounds } from './fetch-slots.ts';

export interface GitServerDependencies {
  readonly repos: RepoStore;
  readonly objects: ObjectStore;
  /**
   * The bucket as the LFS routes reach it (batch lookups, downloads, uploads): a client with a connection pool of its
   * own, so one tenant's LFS traffic never queues every tenant's manifest reads, log claims and pack uploads behind it
   * (40 batches of 1,000 lookups made another owner's manifest read 100 times slower: found in review). Default
   * `objects`.
   */
  readonly lfsObjects?: ObjectStore;
  readonly cache: RepoCache;
  readonly directory: RepositoryDirectory;
  readonly auth: GitAuthOptions;
  readonly metrics: ServiceMetrics;
  readonly drain: DrainState;
  /** Base URL of this service for LFS action links; default from the request's Host. */
  readonly publicUrl?: string;
  readonly limits?: Partial<GitServerLimits>;
  /**
   * Whether this instance has the `serve` role: git, LFS, repository creation and the JSON API's reads and
   * writes. Without it those routes are not registered (404); operations, tasks, the overview, webhook
   * deliveries, health, metrics and the events wake-up remain. Default true.
   */
  readonly serve?: boolean;
  /** Browser origins allowed on the `/api-browser` lane (`server.cors_origins`). Default: none. */
  readonly corsOrigins?: readonly string[];
  /** Repositories `POST /api/initialize` may copy from (`api.initialize_sources`). Default: none. */
  readonly initializeSources?: readonly string[];
  /** Repositories and `https://` URL patterns `POST /api/import` may import from (`api.import_sources`). Default: none. */
  readonly importSources?: readonly string[];
  /** The bounds of imports from URLs (`api.import_*`). Default: 5 min, 1 GiB, internal addresses refused. */
  /** Imports from URLs: their bounds, and where they may not fetch from (`events.denied_target_ranges` too, whatever `allowPrivateTargets` says). */
  readonly urlImports?: {
    readonly timeoutMs: number;
    readonly maxBytes: number;
    readonly allowPrivateTargets: boolean;
    readonly deniedTargetRanges?: readonly string[];
    readonly caFile?: string;
  };
  /** This instance's tasks (`/api/ops`, `/api/tasks`). Default: a registry of its own, named after the host. */
  readonly tasks?: TaskRegistry;
  /** Runs checkpoint, compact, gc and fsck for `POST /api/ops/{op}`. Absent: those answer 501; `sync` runs. */
  readonly maintenance?: MaintenanceRunner;
  /** The events bridge `POST /_events/notify` wakes. Absent: that route answers 404 `events_not_enabled`. */
  readonly events?: EventsWaker;
  /** The per-repository webhooks of the events role (`/api/hooks`). Absent: 404 `webhooks_not_enabled`. */
  readonly webhooks?: RepoWebhooksApi;
}

export interface GitServerLimits {
  /** The largest pack one push may send. Default 2 GiB. */
  maxPackBytes: number;
  /** The largest fetch negotiation request. Default 64 MiB. */
  maxFetchRequestBytes: number;
  /** The largest LFS object. Default 5 GiB. */
  maxLfsObjectBytes: number;
  /** A push silent this long starts its answer and sends side-band keepalives (git's receive.keepAlive). Default 5 s. */
  keepaliveMs: number;
  /** What pushes, LFS uploads and URL imports being received may hold on the cache's disk, per owner and in all. Default 5 GiB and 8 GiB. */
  spool: SpoolBounds;
  /** Fetches and clones running at once, per caller, per owner and in all, and how long one waits its turn. Default 4, 8, 16 and 60 s. */
  fetches: FetchBounds;
  /** JSON API writes that run git (commits, merges, ref and tag writes, initialize, import) at once, per caller, per owner and in all, and how long one waits its turn. Default 2, 4, 8 and 30 s. */
  writes: FetchBounds;
  /** How long a JSON API write's git work may run once it has its turn, before it is cut unpublished (`api.write_deadline`). Default 5 min. */
  writeDeadlineMs: number;
  /** JSON bodies larger than 64 KiB being read at once (commits, imports): their bytes per owner and in all, and their deadline. */
  largeBodies: LargeBodyBounds;
  /** What one repository may store in the bucket, packs and LFS objects together (`quota.repository_max_size`). Default 10 GiB. */
  maxRepositoryBytes: number;
  /** What all repositories of one owner may store together (`quota.owner_max_size`). Default 50 GiB. */
  maxOwnerBytes: number;
}

const DEFAULT_LIMITS: GitServerLimits = {
  maxPackBytes: 2 * 1024 ** 3,
  maxFetchRequestBytes: 64 * 1024 ** 2,
  maxLfsObjectBytes: 5 * 1024 ** 3,
  keepaliveMs: 5000,
  spool: { perOwnerBytes: 5 * 1024 ** 3, totalBytes: 8 * 1024 ** 3 },
  fetches: DEFAULT_FETCH_BOUNDS,
  writes: DEFAULT_WRITE_BOUNDS,
  writeDeadlineMs: DEFAULT_WRITE_DEADLINE_MS,
  largeBodies: DEFAULT_LARGE_BODY_BOUNDS,
  maxRepositoryBytes: 10 * 1024 ** 3,
  maxOwnerBytes: 50 * 1024 ** 3,
};

export async function buildGitServer(deps: GitServerDependencies, options: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const spool = new SpoolBudget(limits.spool);
  const quota = new StorageQuota(deps.objects, { repositoryMaxBytes: limits.maxRepositoryBytes, ownerMaxBytes: limits.maxOwnerBytes }, (repo) => deps.repos.readHead(repo.full));
  const app = Fastify({
    bodyLimit: 64 * 1024,
    // A connection silent this long is dropped, so a client that stalls mid-push cannot hold an index-pack
    // process and a quarantine forever. Generous: a large push's indexing sends nothing back meanwhile.
    connectionTimeout: 10 * 60_000,
    ...requestIdOptions,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, discriminator: true, verbose: true } },
    schemaErrorFormatter,
    // Room for the longest parameter a schema allows (a 253-character name, percent-encoded); longer is a 414.
    routerOptions: { maxParamLength: 1024 },
    ...gitFrameworkErrorOptions,
    ...options,
  });
  requestId(app);
  errorHandler(app);
  inflightGauge(app, deps.metrics);
  gitAuth(app, deps.auth);
  largeBodies(app, limits.largeBodies);
  drainGate(app, deps.drain, (url) => {
    if (isPushRequest(url)) deps.metrics.pushRefused.inc({ reason: 'draining' });
  });

  await gitOpenApi(app);
  discoveryRoutes(app);
  healthRoutes(app, deps.drain, deps.metrics);
  const serving = deps.serve ?? true;
  if (serving) repositoryRoutes(app, { ...deps, quota });
  eventsNotifyRoute(app, deps.events);
  if (serving) {
    const fetches = new FetchSlots(limits.fetches);
    fetchesGauge(deps.metrics.registry, () => fetches.counts);
    gitHttpRoutes(app, { ...deps, maxPackBytes: limits.maxPackBytes, maxFetchRequestBytes: limits.maxFetchRequestBytes, keepaliveMs: limits.keepaliveMs, spool, quota, fetches });
  }
  repoApiRoutes(
    app,
    {
      repos: deps.repos,
      reads: new ReadTurns(),
      writes: writeTurns(limits.writes),
      writeDeadlineMs: limits.writeDeadlineMs,
      objects: deps.objects,
      cache: deps.cache,
      archives: new ArchiveSpool({ dir: join(deps.cache.tmpDir, 'archives') }),
      browserLane: browserLane(deps.corsOrigins ?? []),
      initializeSources: deps.initializeSources ?? [],
      importSources: deps.importSources ?? [],
      ...(deps.auth.projectTokens ? { heldByService: (repo: RepoPath) => deps.auth.projectTokens?.heldByService(repo) ?? false } : {}),
      urlImports: urlImports(deps),
      spool,
      quota,
      tasks: deps.tasks ?? new TaskRegistry({ instance: hostname(), log: app.log }),
      ...(deps.maintenance ? { maintenance: deps.maintenance } : {}),
      ...(deps.webhooks ? { webhooks: deps.webhooks } : {}),
      ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
      onLocalApplyFailed: (repo, error) => {
        deps.metrics.publishLocalApplyFailed.inc();
        app.log.warn({ err: error, repo }, 'published pack not moved into the cache; the next sync downloads it');
      },
    },
    serving ? [...READ_ROUTES, ...WRITE_ROUTES, ...OPS_ROUTES] : OPS_ROUTES,
  );
  if (serving) {
    lfsRoutes(app, {
      objects: deps.lfsObjects ?? deps.objects,
      repos: { exists: (repo) => deps.repos.readHead(`${repo.owner}/${repo.name}`).then(() => true, notFoundAsFalse) },
      ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
      maxObjectBytes: limits.maxLfsObjectBytes,
      spoolDir: deps.cache.tmpDir,
      spool,
      quota,
    });
  }
  return app;
}

function notFoundAsFalse(error: unknown): false {
  if (error instanceof Error && error.name === 'RepoNotFoundError') return false;
  throw error;
}

/** The URL patterns of `api.import_sources` with their bounds and the target policy (imports' own switch). */
function urlImports(deps: Pick<GitServerDependencies, 'importSources' | 'urlImports'>): UrlImports {
  const { timeoutMs = 5 * 60_000, maxBytes = 1024 ** 3, allowPrivateTargets = false, deniedTargetRanges = [], caFile } = deps.urlImports ?? {};
  return {
    patterns: new SourcePatterns(deps.importSources ?? []),
    timeoutMs,
    maxBytes,
    policy: new TargetPolicy({ allowPrivate: allowPrivateTargets, denied: deniedTargetRanges, settings: IMPORT_POLICY_SETTINGS }),
    ...(caFile ? { caFile } : {}),
  };
}
