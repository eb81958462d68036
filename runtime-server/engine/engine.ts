import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { AppLimits, type AppLimitsView } from './app-limits.ts';
import { AppLogs, type AppLogDropListener, type AppLogListener } from '../../src/runtime-contract/app-logs.ts';
import { DEFAULT_ARTIFACT_LIMITS } from '../../src/app-artifacts/artifact.ts';
import { BuildStore } from './build-store.ts';
import { mainThreadRunMs } from './watchdog.ts';
import { StartupBudget, startupRefusal } from './startup-budget.ts';
import { GivenCode } from './given-code.ts';
import { retention } from './build-retention.ts';
import { ASSETS_BINDING } from '../../src/app-artifacts/compatibility.ts';
import type { RoutingTable } from './dispatcher/routing-table.ts';
import type { RuntimeEngineOptions, RuntimeStatus } from './engine-options.ts';
import { EntryProxy, type Refusal, type Route, type SettledRoute } from './entry-proxy.ts';
import { BuildLoadError } from '../../src/app-artifacts/errors.ts';
import { dispatcherStats, forgetCounts, startGeneration, type GenerationContext } from './generation.ts';
import { defaultHost, normalizeHost } from '../../src/runtime-contract/hosts.ts';
import { LoadChecker } from './load-checker.ts';
import { LoadGate } from './load-gate.ts';
import { LogFollowers } from './log-followers.ts';
import { silentRuntimeLogger, type RuntimeLogger } from '../../src/runtime-contract/log.ts';
import { keyOf, splitKey } from '../../src/kube/types.ts';
import { startNodeService, type CodeRefusal } from './node-service.ts';
import type { AppDeployment, ServedApp } from './ports.ts';
import { RequestStats, type DispatcherStats, type RolloutCounts } from './request-stats.ts';
import { Shard, type ShardSaturation, type ShardStop } from './shard.ts';
import { servedTables } from './shard-tables.ts';
import { shardOf } from './shard-of.ts';
import { ShardRouter } from './shard-router.ts';
import { Waiters } from './waiters.ts';
import { HeldRequests, type Placement } from './held-requests.ts';
import { MAX_RUN_DIR, prepareDataDir, runDirOf } from './data-dir.ts';
import { PassPlan } from './pass-plan.ts';
import { ConvergenceLoop } from './convergence-loop.ts';
import { deploymentProblem } from './deployment-check.ts';
import { engineStatus } from './engine-status.ts';
import { concurrencyLimit, onDemandApp, servedApp, type Served } from './served.ts';
import { RequestBodies } from './request-bodies.ts';
import { HostAssignment } from '../../src/runtime-contract/host-assignment.ts';
import { OnDemand } from './on-demand.ts';
import { isBuildRefusal, PreparationFailures, sameDeployment, type PreparationFailure } from './preparation-failures.ts';
import { Fallbacks } from './fallbacks.ts';
import { RouteCancel } from './route-cancel.ts';
import { firstRequest, prepareOnDemand, type FirstRequestHost } from './first-request.ts';
import { BuildChecks } from './build-checks.ts';
import { engineSettings, shardSettings, type EngineSettings } from './engine-settings.ts';
import { workerCode, workerFingerprint, type LiveApp, type WorkerCodeJson } from './worker-code.ts';
import { canaryDeployment, splitRun, splitTag } from './canary.ts';
import { resolveWorkerdBinary, workerdCompatibilityDate } from '../../src/app-artifacts/workerd-binary.ts';

/** An answer that ended this close to a shard's last sign of life was that last sign (timer granularity). */
const LAST_ANSWER_MS = 10;
/** Requests of one project held at once (waiting for a turn or a restart); more are refused at once. */
const HELD_PER_PROJECT = 1000;
/** Fingerprints of code given to isolates remembered (a workerd is replaced after 2,000 isolates by default). */
const LOADED_CODE_KEPT = 20_000;

/** Why an app routed has nothing served on a replica (its 503's `reason`). */
export type UnservedReason = 'AppNotServed' | 'BuildFailed' | 'DatabaseNotFound' | 'DatabaseNotReady';

/** What a request for such an app is told: why, not the details, which are its owner's (the RuntimeApp's conditions). */
const UNSERVED_DETAIL: Record<UnservedReason, string> = {
  AppNotServed: 'The app is not served on this replica yet; retry shortly.',
  BuildFailed: "The app's current build cannot be served; a new deployment of the app replaces it.",
  DatabaseNotFound: "The app's database variables name a database that does not exist; a new deployment of the app replaces it.",
  DatabaseNotReady: "The app's database is not ready yet; retry shortly.",
};

/**
 * The runtime engine: serves runtime apps on workerd shards (one process each, the projects spread over them
 * by `shardOf`), behind one entry point that routes each request by `Host` to its app's shard; there, the
 * dispatcher worker (`dispatcher/dispatcher.js`) calls the app's isolate.
 *
 * The controller declares what each app serves (`deploy`, `remove`); one loop converges on it. A change of
 * code or environment loads the app's new isolate in the running workerd of its shard (checked first in a
 * checker workerd: a build that cannot load is refused with `BuildLoadError` and the app keeps its previous
 * build), then the shard's routing table moves to it. A change of an app's static assets starts a new workerd
 * for its shard and drains the old one. Each shard's watchdog ends a workerd stuck in an app's code or past its
 * memory bound, the app blamed is quarantined (`app-limits.ts`), and the shard restarts alone.
 */
export class RuntimeEngine {
  /** What the apps log (console lines, exceptions, each request's outcome), collected by workerd's tail worker. */
  readonly logs = new AppLogs();
  readonly #o: RuntimeEngineOptions;
  readonly #s: EngineSettings;
  readonly #log: RuntimeLogger;
  readonly #desired = new Map<string, { app: AppDeployment; version: number }>();
  /**
   * The deployment of each app its last pass refused for good (its build cannot load): not prepared again while it is
   * what the app asks for, so its build is not kept on disk (a busy app serving its previous build would otherwise
   * hold a refused build of up to an artifact's largest size for as long as it is kept, counted by no bound).
   */
  readonly #refusedDeployments = new Map<string, AppDeployment>();
  /** What each app deployed with a new build served before, served instead while that build cannot be. */
  readonly #fallbacks = new Fallbacks();
  /** The run of each app's split (`splitRun`), from its first pass in a rollout until a deployment without one. */
  readonly #splitRuns = new Map<string, string>();
  #splitRunCount = 0;
  /** Makes this process's runs its own: a restarted replica's first run is not the one before it. */
  readonly #runPrefix = randomBytes(4).toString('hex');
  /** The keys of `#desired` by project: a project's report is built without a walk over every app deployed. */
  readonly #desiredIn = new Map<string, Set<string>>();
  readonly #served = new Map<string, Served>();
  readonly #waiters = new Waiters<ServedApp | undefined>();
  /** Loader id → the app it loads, for the dispatcher's `GET /code/{id}`. */
  readonly #code = new Map<string, LiveApp>();
  /**
   * The fingerprint of every code an isolate was given → its app, the latest {@link LOADED_CODE_KEPT}: an isolate of
   * code since replaced (a deploy, a changed variable) keeps running what it was given, `waitUntil` work included.
   */
  readonly #loadedCode = new Map<string, string>();
  /** What shards were given, per project: code given again, or an app's first, is the platform's doing. */
  readonly #givenCode = new GivenCode();
  readonly #stats = new RequestStats();
  /** Requests the entry point refused itself (quarantine, the shard starting), by app: never seen by a dispatcher. */
  readonly #refusals = new Map<string, number>();
  /** An app reports to the tail worker while its logs are followed and for a while after. */
  readonly #followers: LogFollowers;
  readonly #limits: AppLimits;
  /** Each account's CPU time for cold starts on this replica's shards. */
  readonly #startupBudget: StartupBudget;
  /** Whom a project's use of the shared bounds counts against (`RuntimeEngineOptions.accountOf`). */
  readonly #accountOf: (project: string) => string;
  #startupRefusals = 0;
  /** Quarantines, probation and their counts (apps by `project/appId`). */
  readonly limits: AppLimitsView;
  readonly #shardCount: number;
  /**
   * Host → app for what is routed: every app asking for its names (`#names`), whatever became of its deployment, so
   * that the names follow the app's objects alone, as the operator says them. Kept one app at a time: a pass sets the
   * apps deployed, routed or removed since the last and those it serves.
   */
  readonly #assignment: HostAssignment;
  /** The names each routed app asks for beyond its default host: its deployment's (`deploy`), or `route`'s. */
  readonly #names = new Map<string, readonly string[]>();
  /** Why an app `route` routed has nothing deployed: what its requests are answered (503). */
  readonly #unservedWhy = new Map<string, UnservedReason>();
  /** Apps deployed or removed since the last pass set their hosts. */
  readonly #hostsChanged = new Set<string>();
  /** Host → app → shard: what the entry point reads per request. */
  readonly #router: ShardRouter;
  #ctx: GenerationContext | undefined;
  /** The entry point, in front of the shards' dispatchers. */
  readonly #entry: EntryProxy;
  #address: AddressInfo | undefined;
  #nodeService: Server | undefined;
  #builds: BuildStore | undefined;
  #shards: Shard[] = [];
  #gate: LoadGate | undefined;
  #version = 0;
  #generations = 0;
  /** When the app deployed under `key` was created (epoch ms), if it is deployed and that is known. */
  createdAt(key: string): number | undefined {
    return this.#desired.get(key)?.app.createdAt;
  }

  /** The one loop that converges on the desired state. */
  readonly #loop = new ConvergenceLoop(() => this.#converge());
  #stopped = false;
  /** New releases of rollouts (by split tag) that stopped their app's shard, with how many stops: not served again on this replica. */
  readonly #suspended = new Map<string, number>();
  /** Which apps are prepared, when apps are served on demand. */
  readonly #onDemand: OnDemand | undefined;
  /** On demand: apps whose first request could not have them prepared, for that deployment. */
  readonly #failedPreparations = new PreparationFailures();
  /** On demand: what an app's first request needs of the engine. */
  readonly #firstRequests: FirstRequestHost | undefined;
  /**
   * On demand: the deployments whose builds a first request or a check is fetching and unpacking, outside any pass
   * (how many at once): kept from collection, which would otherwise forget the size of one deployed over meanwhile
   * while it is written (the build quota then counting it from nothing) and delete what it unpacked.
   */
  readonly #unpacking = new Map<AppDeployment, number>();
  /**
   * On demand: deployments whose build a check or first request could not fetch (an app with a fallback serves it
   * meanwhile): passes prepare the fallback, not fetching the build again (a stalled bucket would hold every app's
   * pass), until a check or request has fetched it.
   */
  readonly #unfetched = new Map<string, AppDeployment>();
  /** On demand: deployments a replica refused before (`deploy`'s `refusedBefore`), untried here till checked. */
  readonly #refusedElsewhere = new Map<string, AppDeployment>();
  /** On demand: new builds given with a fallback, tried in the background. */
  readonly #checks: BuildChecks | undefined;
  /** Requests waiting for their project's probation turn or their shard's restart. */
  readonly #held: HeldRequests;

  constructor(options: RuntimeEngineOptions) {
    this.#o = options;
    this.#log = options.log ?? silentRuntimeLogger;
    const s = (this.#s = engineSettings(options));
    this.#shardCount = s.shards;
    this.#onDemand = options.onDemand && new OnDemand({ ...options.onDemand, accountOf: (project) => this.#accountOf(project), shardOf: (project) => this.shardOf(project) });
    this.#firstRequests = this.#onDemand && this.#firstRequestHost(this.#onDemand);
    this.#checks = this.#onDemand && this.#firstRequests && this.#buildChecks(this.#onDemand, this.#firstRequests);
    this.#accountOf = options.accountOf ?? ((project) => project);
    this.#assignment = new HostAssignment(options.baseDomain, this.#log);
    this.#router = new ShardRouter(this.#shardCount, (host) => this.#assignment.get(host));
    this.#limits = new AppLimits({
      cpuLimitMs: s.cpuLimitMs,
      sustainedWindowMs: s.sustainedWindowMs,
      quarantine: s.quarantine,
      probationMs: s.probationMs,
      // A request sent two health-check intervals after the shard last answered found it stuck already; an app
      // whose answer was the shard's last sign of life may have gone on computing after it (ctx.waitUntil).
      blame: { lateMs: 2 * s.intervalMs, endedGraceMs: LAST_ANSWER_MS },
      log: this.#log,
      logs: this.logs,
      ...(options.onQuarantine ? { onChange: options.onQuarantine } : {}),
      createdAt: (key) => this.#desired.get(key)?.app.createdAt,
      memoryAccount: s.askTheThread,
      accounts: { of: (project) => this.#accountOf(project), projects: (account) => [...this.#desiredIn.keys()].filter((project) => this.#accountOf(project) === account) },
    });
    this.limits = this.#limits;
    this.#startupBudget = new StartupBudget(this.#s.startupBudget);
    this.#held = new HeldRequests({
      waitMs: s.probationWaitMs,
      turnMs: s.probationTurnMs,
      graceMs: LAST_ANSWER_MS,
      maxPerProject: HELD_PER_PROJECT,
      shard: (i) => this.#shards[i],
      turnHolder: (shard) => this.#limits.turnHolder(shard),
      waiting: (shard, project, delta) => this.#limits.waitingForTurn(shard, project, delta),
      onHandover: (shard, listener) => this.#limits.onHandover(shard, listener),
      endTurn: (shard, pool, waitedMs, sentBefore) => {
        for (const app of this.#limits.endTurn(shard, pool, waitedMs, sentBefore)) this.#refused(app);
      },
      refused: (key) => this.#refused(key),
    });
    this.#followers = new LogFollowers(s.logLingerMs, (key) => this.#desired.has(key) && this.#kick());
    // Request bodies arriving: one client's share of an app's slots, and the time a body has (request-bodies.ts).
    const bodies = new RequestBodies({
      timeoutMs: options.requestBodyTimeoutMs,
      appOf: (host) => this.#slotsOf(host),
      trustForwardedHeaders: options.trustForwardedHeaders,
      retryAfter: s.retryAfter,
    });
    const answer = options.answer;
    this.#entry = new EntryProxy({
      route: this.#route,
      trustForwardedHeaders: options.trustForwardedHeaders,
      retryAfterSeconds: options.retryAfterSeconds,
      ...(options.connections ? { connections: options.connections } : {}),
      ...(options.webSocketsPerProject !== undefined ? { webSocketsPerProject: options.webSocketsPerProject } : {}),
      answer: answer ? (req, res) => bodies.answer(req, res) || answer(req, res) : bodies.answer,
      ...(options.https ? { https: options.https } : {}),
      resend: (app, pool) => this.#limits.resendable(app, pool),
      log: this.#log,
      baseDomain: options.baseDomain,
    });
  }

  /** The default shard count of a process that should use every core it is given. */
  static defaultShards(): number {
    return availableParallelism();
  }

  get #runDir(): string {
    return runDirOf(this.#o.dataDir);
  }

  /** The entry point's address, once started. */
  get address(): AddressInfo {
    if (!this.#address) throw new Error('the runtime engine is not running');
    return this.#address;
  }

  /** Serves the entry point on another server too (the HTTPS listener): the same routing, requests and upgrades. */
  serveOn(server: Server | Http2SecureServer): void {
    this.#entry.serveOn(server);
  }

  /** Opens the entry socket, prepares the data directory and starts every shard's workerd (with no apps yet). */
  async start(): Promise<void> {
    if (this.#runDir.length > MAX_RUN_DIR) throw new Error(`runtime dataDir is too long for Unix socket paths: ${this.#o.dataDir}`);
    const binary = this.#o.workerdBinary ?? resolveWorkerdBinary();
    const maxCompatibilityDate = await workerdCompatibilityDate(binary);
    const dirs = await prepareDataDir(this.#o.dataDir);
    this.#builds = new BuildStore(dirs.builds, this.#o.artifacts, {
      accountOf: (project) => this.#accountOf(project),
      ...this.#o.builds,
      parse: { limits: { ...DEFAULT_ARTIFACT_LIMITS, ...this.#o.artifactLimits }, maxCompatibilityDate },
    });
    const runtimeSocket = join(this.#runDir, 'runtime.sock');
    this.#nodeService = await startNodeService(runtimeSocket, { logs: this.logs, code: (id, generation) => this.#codeOf(id, generation) });
    const ctx: GenerationContext = {
      binary,
      startTimeoutMs: this.#s.startTimeoutMs,
      log: this.#log,
      runtimeSocket,
      // Hashed: the option is any shared text, the dispatcher's HMAC key 32 bytes.
      affinityKey: createHash('sha256')
        .update(this.#o.affinityKey ?? randomBytes(32).toString('hex'))
        .digest('hex'),
      v8Flags: [`--max-old-space-size=${this.#s.isolateHeapMb}`],
      perfMaps: this.#s.askTheThread,
      ...(this.#o.outboundAllow ? { outboundAllow: this.#o.outboundAllow } : {}),
      ...(this.#o.outboundDeny ? { outboundDeny: this.#o.outboundDeny } : {}),
    };
    this.#ctx = ctx;
    const emptyTable = this.#emptyTable();
    const startChecker = () => {
      const id = this.#nextId();
      return startGeneration(ctx, id, -1, join(this.#runDir, `check${id}`), [], emptyTable);
    };
    // A build's load may take the CPU time a shard allows an isolate's start.
    const cpuMs = (pid: number) => mainThreadRunMs(pid, (path) => readFileSync(path, 'utf8'));
    this.#gate = new LoadGate(new LoadChecker(startChecker, ctx.startTimeoutMs, { limitMs: this.#s.cpuLimitMs + this.#s.startupLimitMs, cpuMs }), { accountOf: this.#accountOf });
    // On demand, the first check is an app's first request: it should not wait for a workerd to start.
    if (this.#onDemand) this.#gate.warm();
    const shardContext = {
      generation: ctx,
      runDir: this.#runDir,
      ...shardSettings(this.#s),
      log: this.#log,
      nextId: () => this.#nextId(),
      retired: (gen: { id: number }, final: DispatcherStats | undefined) => {
        this.#stats.retire(gen.id, final, (key) => this.#desired.has(key));
        this.#kick(); // a pass with nothing to roll out: collects the builds only the old workerd used
      },
      askTheThread: this.#s.askTheThread,
      projectOfCode: (fingerprint: string) => {
        const app = this.#loadedCode.get(fingerprint);
        return app === undefined ? undefined : splitKey(app).namespace;
      },
      stopped: (stop: ShardStop) =>
        this.#limits.stopped(
          stop,
          (key) => this.#served.get(key)?.live.build.buildId,
          (key) => this.#suspend(key, stop.runningCode),
          this.#appsOfFingerprints(stop.runningCode),
        ),
      saturated: (saturation: ShardSaturation) => this.#saturated(saturation),
    };
    this.#shards = Array.from({ length: this.#shardCount }, (_, i) => new Shard(i, shardContext, { routes: emptyTable, assets: [] }));
    try {
      await Promise.all(this.#shards.map((shard) => shard.start()));
      this.#address = await this.#entry.listen(this.#s.listen.port, this.#s.listen.host);
    } catch (err) {
      // A shard that cannot start, the port taken: nothing of this start may outlive it.
      await this.stop(0);
      throw err;
    }
    this.#log.info('runtime engine started', { workerd: binary, maxCompatibilityDate, shards: this.#shards.map((s) => s.current?.proc.pid), address: this.#address });
  }

  /**
   * Stops taking requests and stops workerd, letting requests in flight finish for at most `drainMs` (default
   * the drain timeout). Pending deploys are rejected.
   */
  async stop(drainMs = this.#s.drainTimeoutMs): Promise<void> {
    this.#stopped = true;
    this.#followers.stop();
    this.#checks?.stop();
    this.#limits.clear();
    await this.#loop.stop();
    this.#waiters.rejectAll(new Error('the runtime engine stopped'));
    // No new connections; kept-alive ones close once idle, the rest when workerd is stopped after the drain.
    const closed = this.#address ? this.#entry.close() : Promise.resolve();
    await this.#gate?.stop();
    await Promise.all(this.#shards.map((shard) => shard.stop(drainMs)));
    this.#entry.server.closeAllConnections();
    await closed;
    await new Promise((resolve) => (this.#nodeService ? this.#nodeService.close(resolve) : resolve(undefined)));
  }

  /** The host an app is always served on. */
  defaultHost(project: string, appId: string): string {
    return defaultHost(project, appId, this.#o.baseDomain);
  }

  /** The shard that serves a project's apps. */
  shardOf(project: string): number {
    return shardOf(project, this.#shardCount);
  }

  /**
   * Declares what an app serves, replacing any earlier deployment of it. Resolves once requests to the app's
   * hosts reach `app.buildId` with `app.env`; rejects with `ArtifactError` (invalid artifact),
   * `BuildLoadError` (workerd cannot load it) or the artifact source's error, in which case the app keeps
   * serving what it served before (or `fallback`, when this replica served nothing of it: what the replicas served
   * before its new build). `refusedBefore`: a replica refused this deployment before (the RuntimeApp says so); on
   * demand, one this replica has not tried is not reported served until it is tried (in the background, or by a
   * request). Idempotent: deploying what is served resolves at once.
   */
  deploy(app: AppDeployment, fallback?: AppDeployment, refusedBefore = false): Promise<ServedApp> {
    if (!this.#ctx || this.#stopped) return Promise.reject(new Error('the runtime engine is not running'));
    const problem = deploymentProblem(app);
    if (problem) return Promise.reject(problem);
    const key = keyOf(app.project, app.appId);
    const before = this.#desired.get(key)?.app;
    const newBuild = before?.buildId !== app.buildId || before.canary?.buildId !== app.canary?.buildId;
    // A deployment never tried here is no fallback: the one it had (the replicas' recorded release) stays.
    const beforeServable = before && !this.#failedHere(key, before) && !this.#untried(key) ? before : undefined;
    if (!sameDeployment(before, app)) this.#fallbacks.deployed(key, this.#served.get(key)?.live.app ?? beforeServable, newBuild, fallback);
    this.#refusedDeployments.delete(key);
    this.#unfetched.delete(key);
    // Deployed without a split (a rollout aborted, or over): a split asked for again is a new run.
    if (!app.canary) this.#splitRuns.delete(key);
    this.#names.set(key, app.hostnames);
    this.#unservedWhy.delete(key);
    this.#hostsChanged.add(key);
    this.#desired.set(key, { app, version: ++this.#version });
    const ofProject = this.#desiredIn.get(app.project);
    if (ofProject) ofProject.add(key);
    else this.#desiredIn.set(app.project, new Set([key]));
    if (refusedBefore) this.#refusedElsewhere.set(key, app);
    else this.#refusedElsewhere.delete(key);
    this.#onDemand?.deployed(key, newBuild);
    // Any change: after a check found a build refused, a new environment is a deployment untried again.
    if (!this.#onDemand?.kept(key) && this.#untried(key)) this.#checks?.add(key);
    return this.#await(key).then((served) => {
      if (!served) throw new Error(`app ${key} was removed while it was being deployed`);
      return served;
    });
  }

  /**
   * Routes an app on `hostnames` (beyond its default host) without deploying it: what the app asks for could not be
   * made a deployment (its database variables do not resolve), and its names still follow its objects, as the
   * operator says them. What it serves, if anything, stays; else its requests are answered 503. Resolves once a pass
   * has routed them.
   */
  async route(project: string, appId: string, hostnames: readonly string[], why: UnservedReason = 'AppNotServed'): Promise<void> {
    if (!this.#ctx || this.#stopped) throw new Error('the runtime engine is not running');
    const problem = deploymentProblem({ project, appId, buildId: '', env: {}, hostnames });
    if (problem) throw problem;
    const key = `${project}/${appId}`;
    this.#unservedWhy.set(key, why);
    const before = this.#names.get(key);
    // Routed already (no pass of it pending: one that failed left it to the next): nothing to wait for.
    if (before && !this.#hostsChanged.has(key) && before.length === hostnames.length && before.every((name, i) => name === hostnames[i])) return;
    this.#names.set(key, [...hostnames]);
    this.#hostsChanged.add(key);
    ++this.#version;
    await this.#await(key);
  }

  /** Stops serving an app (idempotent); resolves once its hosts no longer route. */
  async remove(project: string, appId: string): Promise<void> {
    if (!this.#ctx || this.#stopped) throw new Error('the runtime engine is not running');
    const key = `${project}/${appId}`;
    this.#hostsChanged.add(key);
    this.#names.delete(key);
    this.#unservedWhy.delete(key);
    this.#desired.delete(key);
    const ofProject = this.#desiredIn.get(project);
    if (ofProject?.delete(key) && ofProject.size === 0) this.#desiredIn.delete(project);
    this.#onDemand?.forget(key);
    this.#checks?.forget(key);
    this.#failedPreparations.forget(key);
    this.#splitRuns.delete(key);
    this.#refusals.delete(key);
    this.#refusedDeployments.delete(key);
    this.#unfetched.delete(key);
    this.#refusedElsewhere.delete(key);
    this.#fallbacks.forget(key);
    ++this.#version;
    await this.#await(key);
    if (!this.#desired.has(key)) {
      this.logs.forget(key);
      this.#limits.forget(key);
      await this.#forgetCounts(project, key);
    }
  }

  /**
   * An app removed from the replica takes its request counts along, its dispatchers' and those of its shard's retired
   * workerds, so its series leave `/metrics` together: none is left to go down. An app let go on demand keeps them.
   */
  async #forgetCounts(project: string, key: string): Promise<void> {
    const gens = this.#shards[this.shardOf(project)]?.generations ?? [];
    await Promise.all(gens.map((gen) => forgetCounts(gen, [key])));
    this.#stats.forget(key);
  }

  /**
   * Follows an app's logs: calls `listener` with each new entry. Collecting them costs every request of the app
   * (a tail worker invocation), so it runs only while someone follows, as `wrangler tail` does: the first
   * follower loads the app's isolate anew with the tail worker attached, and the promise resolves once its
   * requests report; after the last one leaves, collection goes on for `logLingerMs`. `dropped` is told how many
   * entries the app's tail worker did not send (past its share of a batch: `dispatcher.js`).
   */
  async followLogs(key: string, listener: AppLogListener, dropped?: AppLogDropListener): Promise<() => void> {
    const unsubscribe = this.logs.subscribe(key, listener, dropped);
    const { first, leave } = this.#followers.join(key);
    if (first && this.#desired.has(key) && this.#ctx && !this.#stopped) {
      ++this.#version;
      await this.#await(key).catch(() => undefined); // a build that cannot be served has no logs to wait for
    }
    return () => {
      unsubscribe();
      leave();
    };
  }

  /** The app's served isolate reports to the tail worker: someone follows its logs, or did within the linger. */
  collectingLogs(key: string): boolean {
    return this.#served.get(key)?.tailed ?? false;
  }

  /** What the runtime serves for an app now, if anything. */
  served(project: string, appId: string): ServedApp | undefined {
    return this.#servedApp(`${project}/${appId}`);
  }

  /** The keys (`project/app`) of the apps a host name routes to or that ask for it now (a name contested routes to none). */
  appsAsking(host: string): string[] {
    const name = normalizeHost(host);
    return name === undefined ? [] : this.#assignment.claimants(name);
  }

  /** Every served app (on demand: every app deployed, prepared or not). */
  list(): ServedApp[] {
    const keys = this.#onDemand ? new Set([...this.#served.keys(), ...this.#desired.keys()]) : this.#served.keys();
    return [...keys].sort().flatMap((key) => this.#servedApp(key) ?? []);
  }

  /** The keys of `project`'s served apps (on demand: deployed, prepared or not), without building their views. */
  keysIn(project: string): string[] {
    const prefix = `${project}/`;
    const keys = new Set<string>();
    // What is served is what is deployed but for removals under way (and, on demand, the few prepared).
    for (const key of this.#served.keys()) if (key.startsWith(prefix)) keys.add(key);
    if (this.#onDemand) for (const key of this.#desiredIn.get(project) ?? []) keys.add(key);
    return [...keys];
  }

  /** Apps deployed: routed, whether prepared or (on demand) waiting for their first request. */
  get deployedApps(): number {
    return this.#desired.size;
  }

  /** Loads of apps' code refused since start because their project had used its startup budget (`startup-budget.ts`). */
  get coldStartsRefused(): number {
    return this.#startupRefusals;
  }

  /** How much CPU time the cold starts of `project`'s account may still take on this replica now (below zero: what they took past it). */
  startupBudgetLeft(project: string): number {
    return this.#startupBudget.available(this.#accountOf(project));
  }

  /** Apps with a fallback kept (`fallbacks.ts`): deployed with a new build not served here yet, or one that cannot be. */
  get fallbackApps(): number {
    return this.#fallbacks.size;
  }

  /** Apps kept prepared for serving on demand (none when every app is prepared when deployed). */
  get preparedOnDemand(): number {
    return this.#onDemand?.size ?? 0;
  }

  /** Why the app's deployment could not be prepared on its first request here, while it is the one deployed. */
  preparationFailure(project: string, appId: string): PreparationFailure | undefined {
    const key = `${project}/${appId}`;
    return this.#failedPreparations.of(key, this.#desired.get(key)?.app);
  }

  status(): RuntimeStatus {
    const appShards = [...this.#served.values()].map((s) => this.shardOf(s.live.app.project));
    return engineStatus(this.#shards, appShards, { workerdStarts: this.#generations, loadChecks: this.#gate?.total ?? 0 });
  }

  /** Per-app request counts, status classes, latency and in-flight requests, from every running workerd. */
  async requestStats(): Promise<Map<string, DispatcherStats['apps'][string]>> {
    return this.#statsOf(this.#shards);
  }

  /** The counts of the shards' running workerd processes, merged with those they retired. */
  async #statsOf(shards: readonly Shard[]): Promise<Map<string, DispatcherStats['apps'][string]>> {
    const gens = shards.flatMap((shard) => shard.generations);
    const live = await Promise.all(gens.map((gen) => dispatcherStats(gen)));
    return this.#stats.merged(gens.map((gen, i) => ({ generation: gen.id, stats: live[i] })));
  }

  /**
   * The per-release counts of the apps served in a rollout now, since their current pair of releases began
   * (zero before their first request), read only from the shards that serve one: nothing for the others.
   */
  async rolloutCounts(): Promise<Map<string, RolloutCounts>> {
    const split = [...this.#served].flatMap(([key, s]) => {
      const tag = s.canary?.tag ?? s.suspended?.tag;
      return tag === undefined ? [] : [{ key, tag, shard: this.shardOf(s.live.app.project) }];
    });
    if (split.length === 0) return new Map();
    const merged = await this.#statsOf([...new Set(split.map((a) => a.shard))].flatMap((i) => this.#shards[i] ?? []));
    const zero = { requests: 0, errors: 0 };
    return new Map(
      split.map(({ key, tag }) => {
        const read = merged.get(key)?.rollout;
        const counts = read?.tag === tag ? read : { tag, stable: zero, canary: zero };
        // A stop of the shard the new release is suspended for is one of its errors (that request never answered).
        const stops = this.#suspended.get(tag) ?? 0;
        return [key, stops > 0 ? { ...counts, canary: { requests: counts.canary.requests + stops, errors: counts.canary.errors + stops } } : counts];
      }),
    );
  }

  /** Requests the entry point holds now: waiting for their project's probation turn or their shard's restart. */
  get heldRequests(): number {
    return this.#held.size;
  }

  /** Requests of each app the entry point answered 503 itself (the app quarantined, its shard starting), since the start. */
  get entryRefusals(): ReadonlyMap<string, number> {
    return this.#refusals;
  }

  /** The latency buckets (upper bounds, ms) `requestStats` counts in. */
  get latencyBucketsMs(): readonly number[] {
    return this.#stats.bucketsMs;
  }

  /**
   * Where the entry point sends a request: its app's shard, unless the app is unknown or held back. An unknown
   * host the owner is deploying an app for (`unrouted`) waits for that deploy, once.
   */
  readonly #route = (hostHeader: string | undefined, mayWait = true, chain?: RouteCancel): Route => {
    const placed = this.#place(hostHeader, mayWait, chain);
    if (!('held' in placed)) return placed;
    const link = chain ?? new RouteCancel();
    const held = this.#held.hold(placed.held, () => this.#place(hostHeader, false, link));
    return 'pending' in held ? { pending: link.follow(held), cancel: link.cancel } : held;
  };

  /** The app served at `host`, with its concurrency limit: its slots in the dispatcher. */
  #slotsOf(host: string | undefined): { key: string; slots: number } | undefined {
    const hit = this.#router.route(host);
    if ('status' in hit) return undefined;
    const served = this.#served.get(hit.key);
    const slots = served ? concurrencyLimit(served, this.#s.serving) : (this.#desired.get(hit.key)?.app.maxConcurrentRequests ?? this.#s.serving.defaultMaxConcurrentRequests ?? 100);
    return { key: hit.key, slots };
  }

  /** Where a request goes now, or that it is held: its project's probation turn is another's, or its shard is restarting. */
  #place(hostHeader: string | undefined, mayWait: boolean, chain?: RouteCancel): Placement {
    const hit = this.#router.route(hostHeader);
    if ('status' in hit) {
      const host = mayWait && hit.status === 404 ? normalizeHost(hostHeader) : undefined;
      const deploying = host === undefined ? undefined : this.#o.unrouted?.(host);
      if (!deploying) return { refusal: hit };
      const link = chain ?? new RouteCancel();
      // Never rejects: the entry point does not expect a pending route to fail.
      return {
        pending: deploying.then(
          (done) => this.#routeAfterDeploy(hostHeader, done, link),
          () => this.#routeAfterDeploy(hostHeader, false, link),
        ),
        cancel: link.cancel,
      };
    }
    // Routed with nothing of it served here: its deployment could not be made, or (not on demand) is not served yet.
    if (!this.#served.has(hit.key) && (!this.#firstRequests || !this.#desired.has(hit.key))) return { refusal: this.#unserved(hit.key) };
    if (this.#firstRequests && !this.#served.has(hit.key)) {
      const link = chain ?? new RouteCancel();
      return { pending: firstRequest(this.#firstRequests, hit.key, () => this.#route(hostHeader, true, link), link), cancel: link.cancel };
    }
    this.#onDemand?.used(hit.key);
    const shard = this.#shards[hit.shard];
    const gen = shard?.current;
    // A quarantined app is refused below rather than held (asked only while the shard restarts: a request's hot path).
    if (shard?.restartingWithin(this.#s.probationWaitMs) && !this.#limits.quarantine(hit.key)) {
      const refusal = { status: 503, title: 'Service Unavailable', detail: "The app's runtime shard is restarting; retry shortly.", retryAfter: this.#s.retryAfter };
      return { held: { shard: hit.shard, key: hit.key, why: 'restart', refusal } };
    }
    const refusal = gen
      ? this.#limits.refusal(hit.key, hit.shard, gen.upstream.pool)
      : { status: 503, title: 'Service Unavailable', detail: 'The runtime is starting; retry shortly.', retryAfter: this.#s.retryAfter };
    if (!refusal) {
      // Whom the app counts against: its WebSockets are the account's (websocket-relay.ts), passed on with the route.
      const routed: SettledRoute = { upstream: gen!.upstream, app: hit.key, account: this.#accountOf(splitKey(hit.key).namespace) };
      return routed;
    }
    if (refusal.reason === 'Probation') return { held: { shard: hit.shard, key: hit.key, why: 'turn', refusal } };
    this.#refused(hit.key);
    return { refusal };
  }

  /** The 503 of an app routed with nothing served here, saying why as far as this replica knows. */
  #unserved(key: string): Refusal {
    const desired = this.#desired.get(key)?.app;
    const why = desired && this.#failedHere(key, desired) ? 'BuildFailed' : (this.#unservedWhy.get(key) ?? 'AppNotServed');
    return { status: 503, title: 'Service Unavailable', detail: UNSERVED_DETAIL[why], retryAfter: this.#s.retryAfter, reason: why };
  }

  /** The route of a request that waited for its app's deploy: routed again (its first request may prepare it), or a 503 to retry. */
  #routeAfterDeploy(hostHeader: string | undefined, done: boolean, chain: RouteCancel): Promise<SettledRoute> {
    const route = this.#route(hostHeader, false, chain);
    // Out of time and still no app at the host: a 503 to retry (the deploy goes on). Routed meanwhile after all: go on.
    if (!done && 'refusal' in route && route.refusal?.status === 404) {
      return Promise.resolve({
        refusal: { status: 503, title: 'Service Unavailable', detail: 'The app is being deployed on this replica; retry shortly.', retryAfter: this.#s.retryAfter, reason: 'AppPreparing' },
      });
    }
    return chain.follow(route);
  }

  /**
   * An app blamed for stopping its shard while in a rollout loses its new release on this replica (the likelier
   * cause: the stable release served before it) rather than being quarantined whole; answers that release's
   * build. Every stop until the pass without it has applied is counted against it, and so is a stop whose thread
   * ran the suspended release's code (`running`: a workerd started again after the first stop runs the table it
   * had until that pass reaches it); a later stop blamed on the app, serving its stable release alone, quarantines
   * it as usual.
   */
  #suspend(key: string, running: readonly string[] | undefined): string | undefined {
    const served = this.#served.get(key);
    // The thread was found in the stable release's code and never the new one's: that one is at fault, not spared.
    if (foundStableOnly(served, running)) return undefined;
    const release = served?.canary ?? (served?.suspended && running?.includes(served.suspended.fingerprint) ? served.suspended : undefined);
    if (!release) return undefined;
    this.#suspended.set(release.tag, (this.#suspended.get(release.tag) ?? 0) + 1);
    this.#kick();
    return 'live' in release ? release.live.build.buildId : release.buildId;
  }

  #firstRequestHost(onDemand: OnDemand): FirstRequestHost {
    return {
      onDemand,
      failures: this.#failedPreparations,
      log: this.#log,
      retryAfter: this.#s.retryAfter,
      desired: (key) => this.#desired.get(key)?.app,
      unpack: async (app) => {
        const key = `${app.project}/${app.appId}`;
        const canary = canaryDeployment(app);
        this.#unpacking.set(app, (this.#unpacking.get(app) ?? 0) + 1);
        try {
          // Both settled before the deployment leaves `#unpacking`: one may still be written when the other fails.
          const failed = (await Promise.allSettled([this.#builds!.prepare(app), canary && this.#builds!.prepare(canary)])).find((r) => r.status === 'rejected');
          if (failed) throw failed.reason;
          if (this.#unfetched.get(key) === app) this.#unfetched.delete(key);
        } catch (err) {
          // Its fallback is served instead, and passes do not fetch this build again till a check or request has.
          if (this.#fallbacks.of(key) && this.#desired.get(key)?.app === app) {
            this.#unfetched.set(key, app);
            this.#fallbacks.failed(key, app);
          }
          throw err;
        } finally {
          const left = this.#unpacking.get(app)! - 1;
          if (left > 0) this.#unpacking.set(app, left);
          else this.#unpacking.delete(app);
        }
      },
      hasFallback: (key) => this.#fallbacks.of(key) !== undefined,
      serve: async (key) => {
        ++this.#version;
        let failure: { error: unknown } | undefined;
        await this.#await(key).catch((error: unknown) => (failure = { error }));
        const served = this.#served.get(key);
        if (!served) throw failure ? failure.error : new Error(`app ${key} is no longer served`);
        return { fellBack: !this.#servesDeployed(key, served), ...(failure ? { failure: failure.error } : {}) };
      },
      refused: (key) => this.#refused(key),
      failed: (key) => this.#o.onPrepared?.(key),
      loaded: (key) => this.#o.onPrepared?.(key),
    };
  }

  #buildChecks(onDemand: OnDemand, firstRequests: FirstRequestHost): BuildChecks {
    return new BuildChecks(
      {
        untried: (key) => this.#untried(key),
        failedForNow: (key) => this.#failedForNow(key),
        check: (key) => onDemand.check(key, () => prepareOnDemand(firstRequests, key)).catch(() => undefined),
        whenIdle: () => onDemand.whenIdle(),
      },
      { retryMs: this.#o.onDemand?.checkRetryMs },
    );
  }

  /**
   * On demand: `key`'s deployment is a new build not tried on this replica, with a fallback to serve if it cannot
   * be (`recordedFallback` on a replica started since), or one another replica refused: whether it will be served is
   * not known yet.
   */
  #untried(key: string): boolean {
    const desired = this.#desired.get(key)?.app;
    if (desired === undefined || this.#served.has(key) || this.#failedHere(key, desired)) return false;
    return this.#fallbacks.of(key) !== undefined || this.#refusedElsewhere.get(key) === desired;
  }

  /**
   * On demand: `key`'s deployment failed here, serving its fallback, for a reason that may pass (no room, a bucket
   * that did not answer in time), not a build refused: the background checks try it again.
   */
  #failedForNow(key: string): boolean {
    const desired = this.#desired.get(key)?.app;
    if (!desired || this.#servesDeployed(key, this.#served.get(key)) || !this.#fallbacks.hasFailed(key, desired)) return false;
    return this.#refusedDeployments.get(key) !== desired && !isBuildRefusal(this.#failedPreparations.of(key, desired)?.error);
  }

  /** Counts a request of `key` the entry point answered itself. */
  #refused(key: string): void {
    this.#refusals.set(key, (this.#refusals.get(key) ?? 0) + 1);
  }

  #nextId(): number {
    this.#generations += 1;
    return this.#generations;
  }

  /**
   * A shard's thread was saturated over the sustained window: the app that held it while another project waited is
   * held to it (`AppLimits.sustained`). Answers what to end the shard's workerd for, and the code of that app it was
   * found running, when cutting the app's requests frees nothing.
   */
  #saturated({ use, generation, samples }: ShardSaturation): { detail: string; runningCode: string[] } | undefined {
    const apps = samples?.map((fingerprints) => this.#appsOfFingerprints(fingerprints) ?? []);
    const held = this.#limits.sustained(
      use,
      apps,
      { generation },
      (key) => this.#served.get(key)?.live.build.buildId,
      (key) => this.#suspend(key, samples?.flat()),
    );
    if (!held?.end) return undefined;
    // Only the thread can say the app's code runs with nothing of it in flight (without it, the app was found by them).
    const runningCode = [...new Set(samples?.flat())].filter((fingerprint) => this.#loadedCode.get(fingerprint) === held.app);
    this.#limits.countSaturation(runningCode.length > 0 ? 'held' : 'nobody');
    return runningCode.length > 0 ? { detail: held.detail, runningCode } : undefined;
  }

  /** The apps code with one of `fingerprints` was given for (a stopped shard's thread was running it, a deploy since or not); undefined when none. */
  #appsOfFingerprints(fingerprints: readonly string[] | undefined): string[] | undefined {
    if (fingerprints === undefined) return undefined;
    const apps = new Set<string>();
    for (const fingerprint of fingerprints) {
      const app = this.#loadedCode.get(fingerprint);
      if (app !== undefined) apps.add(app);
    }
    return apps.size > 0 ? [...apps] : undefined;
  }

  /**
   * The code of loader id `id` for workerd `generation`. A shard's load waits for its project's startup budget (or
   * is refused), its watchdog gives it the startup allowance as it is handed over, and its project is charged
   * what the load held the shard for.
   */
  async #codeOf(id: string, generation?: number): Promise<WorkerCodeJson | CodeRefusal | undefined> {
    const live = this.#code.get(id);
    if (!live) return undefined;
    const key = `${live.app.project}/${live.app.appId}`;
    const fingerprint = workerFingerprint(live);
    // Code a shard was given before (loaded again after a workerd's restart or fresh start; a log follower's tail is
    // other code), or an app's first code in this process, is the platform's doing, not its tenant's.
    const code = `${fingerprint}${id.endsWith('~tailed') ? '~tailed' : ''}`;
    const platform = this.#givenCode.byPlatform(live.app.project, key, code);
    const ask = () => this.#startupBudget.admit(this.#accountOf(live.app.project), this.#gate?.loadCpuMs(live) ?? 0, platform);
    const starts = generation === undefined ? undefined : this.#shards.map((s) => s.coldStarts(generation)).find((c) => c !== undefined);
    const asked = await starts?.admit(id, ask);
    const admission = asked?.admission;
    if (admission && !admission.admitted) {
      this.#startupRefusals += 1;
      return { refusal: startupRefusal(admission.retryAfterMs, this.#s.startupBudget.cpuMsPerMinute) };
    }
    let stretch: Promise<number> | undefined;
    try {
      this.#loadedCode.delete(fingerprint);
      this.#loadedCode.set(fingerprint, key);
      if (this.#loadedCode.size > LOADED_CODE_KEPT) this.#loadedCode.delete(this.#loadedCode.keys().next().value!);
      const given = await workerCode(live);
      // Only the first hand-over of an id loads it: later ones (concurrent first requests) find the isolate made.
      stretch = asked?.first ? starts?.loading(key) : undefined;
      if (starts) this.#givenCode.given(live.app.project, key, code);
      return given;
    } finally {
      // Past the CPU bound and the allowance the shard is ended and the app quarantined: no load is charged more.
      const most = this.#s.cpuLimitMs + this.#s.startupLimitMs;
      if (admission) void (stretch ?? Promise.resolve(0)).then((ms) => admission.charge(Math.min(ms, most)));
    }
  }

  #await(key: string): Promise<ServedApp | undefined> {
    const promise = this.#waiters.add(key, this.#version);
    this.#kick();
    return promise;
  }

  #kick(): void {
    this.#loop.kick();
  }

  /** One pass: prepare desired builds, load changed apps, apply each shard's table (a new workerd where assets changed), settle waiters. */
  async #converge(): Promise<void> {
    const upTo = this.#version;
    const snapshot = this.#toPrepare();
    let letGo: string[] | undefined;
    const plan = new PassPlan(this.#served, snapshot.keys());
    await Promise.all([...snapshot].map(([key, { app }]) => this.#prepare(plan, key, app)));
    this.#keepRefused(plan);
    try {
      // What each project's checks took of the checker in this pass: its fallbacks' checks come out of the same share.
      const checked = new Map<string, number>();
      await this.#gate!.check(plan, this.#code, checked);
      await this.#fallBack(plan, snapshot, checked);
      // An app serving its fallback goes last: its next request would try the deployment that failed first.
      letGo = this.#onDemand?.evictFrom(plan.next, this.#log, (key) => {
        const served = plan.next.get(key);
        return served !== undefined && !this.#servesDeployed(key, served);
      });
      // Before any request can load them.
      for (const s of plan.next.values()) {
        this.#code.set(s.id, s.live);
        if (s.canary) this.#code.set(s.canary.id, s.canary.live);
      }
      // Applied first, then committed: if a shard's workerd does not take its table, that shard's apps stay as they were.
      this.#assign(plan.next);
      const tables = servedTables(plan.next, (key) => this.#assignment.hostsRoutedTo(key), this.#shardCount, this.#s.serving, this.#s.retryAfter);
      const applied = await Promise.allSettled(this.#shards.map((shard, i) => shard.apply(tables[i]!)));
      const refused = new Map<number, unknown>();
      applied.forEach((result, i) => result.status === 'rejected' && refused.set(i, result.reason));
      if (refused.size > 0) {
        for (const [i, err] of refused) this.#log.error('runtime rollout failed', { shard: i, error: err });
        plan.keepRefusedShards(refused, (key) => this.shardOf(key.slice(0, key.indexOf('/'))));
        this.#assign(plan.next);
      }
      this.#commit(plan.next);
    } catch (err) {
      this.#log.error('runtime rollout failed', { error: err });
      plan.failAll(err);
      // Nothing was assigned or committed: a deploy of an app not prepared, or a remove, did not happen either. Each
      // waiter fails, and its caller's retry makes the next pass.
      for (const key of this.#waiters.keys()) if (!plan.failures.has(key)) plan.failures.set(key, err);
    }
    for (const [key, err] of plan.failures) {
      const asked = snapshot.get(key)?.app;
      if (!asked || this.#desired.get(key)?.app !== asked) continue;
      if (err instanceof BuildLoadError) {
        this.#refusedDeployments.set(key, asked);
        // On demand, with nothing served: what a first request finds (503 BuildFailed at once) and the report says.
        if (this.#onDemand && !this.#served.has(key)) this.#failedPreparations.record(key, asked, err);
      }
      this.#fallbacks.failed(key, asked);
    }
    for (const key of this.#waiters.keys()) {
      // Left for a later pass by the checker's turns: its waiters wait for that pass.
      if (plan.deferred.has(key) && !plan.failures.has(key)) continue;
      this.#waiters.settle(key, upTo, plan.failures.has(key) ? { error: plan.failures.get(key) } : { value: () => this.#servedApp(key) });
    }
    if (plan.deferred.size > 0) this.#kick();
    // Let go before their new deployment was tried (prepared in this pass, then over the bounds): checked later.
    for (const key of letGo ?? []) if (this.#untried(key)) this.#checks?.add(key);
    await this.#collect();
  }

  /** An app whose deployment was refused, not prepared again, keeps what it serves (on demand: while it is kept). */
  #keepRefused(plan: PassPlan): void {
    const kept = this.#onDemand && new Set(this.#onDemand.keys());
    for (const [key, refused] of this.#refusedDeployments) {
      const served = this.#served.get(key);
      if (served && !plan.next.has(key) && this.#desired.get(key)?.app === refused && (!kept || kept.has(key))) plan.next.set(key, served);
    }
  }

  /**
   * What a pass prepares: every desired app, or on demand, those kept prepared (found from the few kept, not the many
   * routed) but those still fetching a build unless `withFetching` (the builds kept on disk); an app whose
   * deployment was refused, its fallback if it has one.
   */
  #toPrepare(withFetching = false): Map<string, { app: AppDeployment; version: number }> {
    const out = new Map<string, { app: AppDeployment; version: number }>();
    const kept = this.#onDemand && (withFetching ? this.#onDemand.keys() : this.#onDemand.preparable());
    for (const key of kept ?? this.#desired.keys()) {
      const desired = this.#desired.get(key);
      if (!desired) continue;
      if (this.#refusedDeployments.get(key) !== desired.app && this.#unfetched.get(key) !== desired.app) out.set(key, desired);
      else {
        const fallback = this.#fallbacks.of(key);
        if (fallback) out.set(key, { app: fallback, version: desired.version });
      }
    }
    return out;
  }

  /**
   * The apps of `plan` whose deployment failed with nothing served before on this replica (let go on demand, or
   * never prepared here) serve their fallback, prepared and checked as any deployment; the failure stands.
   */
  async #fallBack(plan: PassPlan, snapshot: ReadonlyMap<string, { app: AppDeployment }>, checked: Map<string, number>): Promise<void> {
    const asked = new Map<string, AppDeployment>();
    for (const key of plan.failures.keys()) {
      const fallback = this.#fallbacks.of(key);
      if (fallback && !plan.next.has(key) && fallback !== snapshot.get(key)?.app) asked.set(key, fallback);
    }
    if (asked.size === 0) return;
    const fallbacks = new PassPlan(this.#served, asked.keys());
    await Promise.all([...asked].map(([key, app]) => this.#prepare(fallbacks, key, app)));
    await this.#gate!.check(fallbacks, this.#code, checked);
    for (const [key, served] of fallbacks.next) plan.next.set(key, served);
    // A fallback left for later is tried again by the next pass (its deployment's failure stands in this one).
    if (fallbacks.deferred.size > 0) this.#kick();
  }

  /** Whether `served` is what `key` is deployed with now, not its fallback (nor an earlier deployment still in place). */
  #servesDeployed(key: string, served: Served | undefined): boolean {
    return served !== undefined && served.live.app === this.#desired.get(key)?.app;
  }

  /** Whether `app`, the deployment of `key`, could not be served on this replica. */
  #failedHere(key: string, app: AppDeployment): boolean {
    return this.#refusedDeployments.get(key) === app || this.#unfetched.get(key) === app || this.#fallbacks.hasFailed(key, app) || this.#failedPreparations.of(key, app) !== undefined;
  }

  /**
   * Routes every app asking for its names (`#names`), whether this pass serves its deployment, its fallback or
   * nothing of it (a build that cannot load, a first request to come), on the names it asks for now. Only the apps of
   * this pass and those deployed, routed or removed since the last are set: the rest have not changed.
   */
  #assign(next: ReadonlyMap<string, Served>): void {
    const keys = new Set([...this.#hostsChanged, ...next.keys(), ...this.#served.keys()]);
    this.#hostsChanged.clear();
    for (const key of keys) {
      const names = this.#names.get(key);
      const slash = key.indexOf('/');
      this.#assignment.set(key, names && { project: key.slice(0, slash), appId: key.slice(slash + 1), hostnames: names });
    }
  }

  /** The tag `key`'s split of `pair` is served under: the run it is in, or a new one. */
  #splitRunOf(key: string, pair: string): string {
    const tag = splitRun(pair, this.#splitRuns.get(key), () => `${this.#runPrefix}.${++this.#splitRunCount}`);
    this.#splitRuns.set(key, tag);
    return tag;
  }

  /** Unpacks the desired build(s) of an app into `plan`; an app whose build cannot be had keeps what it served (under a new id when its tail changed). */
  async #prepare(plan: PassPlan, key: string, app: AppDeployment): Promise<void> {
    // The tail worker is part of the isolate's code: following an app's logs loads it anew, with tails.
    const tailed = this.#followers.collecting(key);
    try {
      const live = await this.#live(app);
      const canaryApp = canaryDeployment(app);
      const canary = canaryApp && (await this.#live(canaryApp));
      const tag = canary && this.#splitRunOf(key, splitTag(live, canary));
      const suspended = canary && tag !== undefined && this.#suspended.has(tag);
      plan.next.set(key, {
        live,
        id: this.#gate!.idOf(live, tailed),
        tailed,
        ...(canary && tag !== undefined && !suspended ? { canary: { live: canary, id: this.#gate!.idOf(canary, tailed), tag } } : {}),
        ...(canary && tag !== undefined && suspended ? { suspended: { buildId: canary.build.buildId, tag, fingerprint: workerFingerprint(canary) } } : {}),
      });
    } catch (err) {
      plan.failures.set(key, err);
      // On demand, a build that could not be had for now (not refused) is not fetched again by every later pass of
      // any app: its fallback serves until a check, after a backoff, or a request has fetched it.
      if (this.#onDemand && !isBuildRefusal(err) && this.#fallbacks.of(key) && this.#desired.get(key)?.app === app) {
        this.#unfetched.set(key, app);
        this.#checks?.later(key);
      }
      const served = this.#served.get(key);
      if (served) {
        const canary = served.canary && { ...served.canary, id: this.#gate!.idOf(served.canary.live, tailed) };
        plan.next.set(key, { live: served.live, id: this.#gate!.idOf(served.live, tailed), tailed, ...(canary ? { canary } : {}), ...(served.suspended ? { suspended: served.suspended } : {}) });
      }
    }
  }

  /** One release of an app, its build unpacked; throws what keeps it from being served. */
  async #live(app: AppDeployment): Promise<LiveApp> {
    const build = await this.#builds!.prepare(app);
    if (build.assetsDir && ASSETS_BINDING in app.env) {
      throw new BuildLoadError(build.buildId, `the environment variable ${ASSETS_BINDING} is reserved: it is the binding of the build's static assets`);
    }
    const live = { app, build };
    const refused = this.#gate!.refusal(live);
    if (refused) throw refused;
    return live;
  }

  /** Makes `next` what is served, once the shards serve it. */
  #commit(next: ReadonlyMap<string, Served>): void {
    this.#served.clear();
    for (const [key, s] of next) this.#served.set(key, s);
    this.#fallbacks.settle((key) => this.#servesDeployed(key, next.get(key)));
    // Served here: tried, whatever another replica found.
    for (const key of this.#refusedElsewhere.keys()) if (this.#servesDeployed(key, next.get(key))) this.#refusedElsewhere.delete(key);
    // A suspension lasts while its pair of releases is asked for (a stop counted just now has its pass to come).
    const asked = new Set([...next.values()].flatMap((s) => [s.canary?.tag, s.suspended?.tag]));
    for (const tag of this.#suspended.keys()) if (!asked.has(tag)) this.#suspended.delete(tag);
  }

  #emptyTable(): RoutingTable {
    return { hosts: {}, apps: {}, retryAfter: this.#s.retryAfter };
  }

  #servedApp(key: string): ServedApp | undefined {
    const s = this.#served.get(key);
    if (s) return servedApp(key, s, this.#assignment, this.#s.serving);
    const desired = this.#onDemand && this.#desired.get(key);
    if (!desired) return undefined;
    const shown = onDemandApp(key, this.#fallbacks.shown(key, desired.app), this.#assignment, this.#s.serving);
    if (!this.#untried(key)) return shown;
    const fallback = this.#fallbacks.of(key);
    return { ...shown, untried: fallback ? { fallbackBuildId: fallback.buildId } : {} };
  }

  /**
   * Deletes unpacked builds and loader ids that neither what is to be prepared nor what is served uses. Runs inside
   * the loop, so beside no `prepare` but a first request's, whose app is kept and its build among those kept.
   */
  async #collect(): Promise<void> {
    const retiring = this.#shards.some((shard) => shard.retiring > 0);
    const { unusedIds, keepBuilds } = retention([...[...this.#toPrepare(true).values()].map(({ app }) => app), ...this.#unpacking.keys()], this.#served.values(), this.#code, retiring);
    for (const id of unusedIds) this.#code.delete(id);
    await this.#builds?.retain(keepBuilds).catch((err: unknown) => this.#log.warn('removing unused builds failed', { error: err }));
  }
}

/**
 * Whether the thread (its samples, or what it ran when stopped) was found in an app in a rollout running its stable
 * release's code and never its new release's: the stable release is at fault, so suspending the new one would spare
 * the app for nothing.
 */
function foundStableOnly(served: Served | undefined, running: readonly string[] | undefined): boolean {
  if (!served?.canary || running === undefined) return false;
  return running.includes(workerFingerprint(served.live)) && !running.includes(workerFingerprint(served.canary.live));
}
