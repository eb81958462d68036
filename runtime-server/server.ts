import { mkdtemp, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import type { Database } from '../src/apis/v1alpha1/database.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { createInformer, loadKubeConnection, objectClient, objectKey, SECRETS, type Informer, type KubeConnection, type SecretObject } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { APP_HOSTNAMES, DATABASES, DOMAIN_CLAIMS, HOSTNAME_CLAIMS, PROJECT_DOMAINS, PROJECTS, RUNTIME_APPS, TLS_CERTIFICATES } from '../src/platform/resources.ts';
import type { Project } from '../src/apis/v1alpha1/project.ts';
import { projectAccount } from '../src/platform/project-account.ts';
import type { TlsCertificate } from '../src/apis/v1alpha1/tls-certificate.ts';
import { factsFromClaims } from '../src/platform/claim-facts.ts';
import { serveRefusal } from '../src/platform/host-admission.ts';
import type { DomainClaim, HostnameClaim } from '../src/apis/v1alpha1/domain-claim.ts';
import { RuntimeEngine } from './engine/index.ts';
import type { Controller } from '../src/controller-runtime/controller.ts';
import type { Logger } from '../src/logging/log.ts';
import { AppRecords } from './app-records.ts';
import { AppTokenReader } from './app-token-reader.ts';
import { DatabaseEgress } from './database-egress.ts';
import { BUILDS_SHARE, type OnDemandConfig, type RuntimeServerConfig } from './config.ts';
import type { OnDemandOptions } from './engine/on-demand.ts';
import { servingController } from './controller.ts';
import { servingMetrics } from './metrics.ts';
import { requestMetrics } from './request-metrics.ts';
import type { RuntimeAppReport } from '../src/runtime-contract/report.ts';
import { classifyDeployError, failedBuildOf } from './failures.ts';
import { reportFor } from './app-report.ts';
import { S3ArtifactSource } from './s3-artifact-source.ts';
import { projectAccountView, projectAppHostname, projectRuntimeApp } from './cache-projections.ts';
import { startStatusServer, type StatusServer } from './status-server.ts';
import { FirstPass } from './first-pass.ts';
import { projectsAccessLog } from './projects-access.ts';
import { ActedMarks } from './acted-marks.ts';
import { impliedReport, type DefaultHostSettings } from '../src/runtime-contract/implied-report.ts';
import { compareResourceVersions } from '../src/kube/resource-version.ts';
import { isDeepStrictEqual } from 'node:util';
import type { ReplicaSnapshot } from './replica-reports.ts';
import { AppHosts } from './app-hosts.ts';
import { NamesOnDemand, nameReads } from './names-on-demand.ts';
import { UnlistedApps } from './unlisted-apps.ts';
import type { DatabaseSources } from './linked-environment.ts';
import { ReplicaPublisher } from './replica-publisher.ts';
import { RolloutCountsReader } from './rollout-counts.ts';
import { MetricsWindow } from './metrics-window/metrics-window.ts';
import { MetricsSampler } from './metrics-window/sampler.ts';
import { httpsPolicy } from './tls/https-policy.ts';
import { RuntimeTls } from './tls/runtime-tls.ts';

/** How long a request for an app of the first list not reached yet waits for its deploy (as a first request on demand). */
const UNROUTED_WAIT_MS = 10_000;

/** How long a replica takes traffic on lookups (`#unlisted`) before it says it is not ready until its apps are listed. */
const UNLISTED_LIMIT_MS = 5 * 60_000;

/** How long stopping lets workerd finish the requests in flight. */
const STOP_DRAIN_MS = 10_000;

/**
 * `cw-runtime`, assembled: a RuntimeApp informer (every namespace) feeding the serving controller, the
 * runtime engine (workerd, whose dispatcher routes by Host), the status server, and the replica's report (its
 * RuntimeReplica and Lease). Stateless: the data directory is a cache, so replicas need no coordination
 * and a restart rebuilds everything from the informer.
 */
export class RuntimeServer {
  readonly registry = new Registry();
  readonly #config: RuntimeServerConfig;
  readonly #log: Logger;
  readonly #records = new AppRecords((key) => this.#publisher?.changed(projectOfKey(key)));
  /** How far this replica has acted on each project's apps (its reports' `acted`). */
  readonly #marks = new ActedMarks();
  readonly #abort = new AbortController();
  #engine: RuntimeEngine | undefined;
  #informer: Informer<RuntimeApp> | undefined;
  #hostnames: Informer<AppHostname> | undefined;
  #domains: Informer<ProjectDomain> | undefined;
  #domainClaims: Informer<DomainClaim> | undefined;
  #hostnameClaims: Informer<HostnameClaim> | undefined;
  #databases: Informer<Database> | undefined;
  #certificates: Informer<TlsCertificate> | undefined;
  /** Who created each project (`projectAccount`): a user's projects share the replica's bounds. */
  #projects: Informer<Project> | undefined;
  #tls: RuntimeTls | undefined;
  #controller: Controller<RuntimeApp> | undefined;
  #status: StatusServer | undefined;
  #publisher: ReplicaPublisher | undefined;
  #rolloutCounts: RolloutCountsReader | undefined;
  /** The apps' requests over time, since this replica started (`GET /apps/{namespace}/{app}/metrics`). */
  readonly #metricsWindow = new MetricsWindow({ createdAt: (key) => this.#engine?.createdAt(key) });
  #sampler: MetricsSampler | undefined;
  #entryPort: number | undefined;
  #ownDataDir: string | undefined;
  /** The apps of the first list not settled yet; `undefined` until the informer has synced. */
  #firstPass: FirstPass | undefined;
  /** Which apps a host names, by the informers: a request for an app of the first list not reached yet deploys it first. */
  #appHosts: AppHosts | undefined;
  /** Before the informers have listed the apps (on demand): the app a request's host names, read from the apiserver. */
  #unlisted: UnlistedApps | undefined;
  /** Until when lookups stand in for the list (epoch ms). */
  #unlistedUntil = Infinity;
  #firstPassOverdueLogged = false;
  #stopping: Promise<void> | undefined;
  /** What `notReady` answered last (`null` before its first call), to log each change once. */
  #lastNotReady: string | undefined | null = null;

  constructor(config: RuntimeServerConfig, log: Logger) {
    this.#config = config;
    this.#log = log;
  }

  get entryPort(): number | undefined {
    return this.#entryPort;
  }

  /** The HTTPS listener's port, when it listens. */
  get httpsPort(): number | undefined {
    return this.#tls?.port;
  }

  get statusPort(): number | undefined {
    return this.#status?.port;
  }

  /**
   * Ready to take traffic (`/readyz`): workerd answers on the entry socket and the informers have listed. An app
   * of the first list not reached yet is deployed when a request asks for it (`#unrouted`), so a new replica takes
   * traffic in seconds whatever the number of apps, and never answers 404 for an app it simply has not got to.
   */
  ready(): boolean {
    return this.notReady() === undefined;
  }

  /** Why this replica does not take traffic now (what `/readyz` answers with its 503), or `undefined`. */
  notReady(): string | undefined {
    const reason = this.#notReadyReason();
    // Each change is logged once: a replica leaving its Service says why in its own log.
    if (reason !== this.#lastNotReady) {
      // What its RuntimeReplica says follows at once (the publisher writes only what changed).
      this.#publisher?.replicaChanged();
      if (reason === undefined) this.#log.info('ready: taking traffic', { firstListPending: this.#firstPass?.pendingCount ?? 0 });
      else this.#log.warn('not ready', { reason });
      this.#lastNotReady = reason;
    }
    return reason;
  }

  #notReadyReason(): string | undefined {
    // Only once its RuntimeReplica says it takes traffic: cw-api and the operator find replicas there, not by probes.
    return this.#notServingReason() ?? (this.#publisher?.written?.takesTraffic ? undefined : 'starting: publishing its RuntimeReplica');
  }

  /** Why this replica cannot serve now (what its RuntimeReplica's `takesTraffic` says), or `undefined`. */
  #notServingReason(): string | undefined {
    if (this.#stopping) return 'stopping: finishing the requests in flight';
    if (this.#entryPort === undefined || !this.#engine) return 'starting: the entry point does not listen yet';
    // On demand, an app asked for before the apps are listed is looked up (`#unlisted`): only the few caches its
    // admission reads must have listed (domains and their claims; a custom host name's objects are read by name).
    if (!this.#firstPass && !this.#unlisted) return 'starting: the informers have not listed the apps and their host names yet';
    // Lookups are a start's stopgap: a list that does not come (the apiserver refusing it, say) must not leave a
    // replica taking traffic for ever on reads it never watches.
    if (!this.#firstPass && Date.now() > this.#unlistedUntil) return `starting: the informers have not listed the apps and their host names within ${UNLISTED_LIMIT_MS / 1000} s`;
    // Without on-demand serving every app is prepared as it is reached: one not reached yet cannot be asked for.
    if (!this.#config.onDemand && !this.#firstPassDone()) return `starting: ${this.#firstPass?.pendingCount ?? 0} apps of the first list are not served yet`;
    const status = this.#engine.status();
    if (status.ready) return undefined;
    const shards = status.shards.filter((shard) => !shard.ready).map((shard) => `shard ${shard.index} (workerd generation ${shard.generation}, ${shard.restarts} restarts)`);
    return `workerd not healthy: ${shards.join(', ') || 'no shard running'}`;
  }

  /**
   * Whether this replica's reports cover every app (the RuntimeReplica's `ready`: what the operator counts). Not
   * before every app of the first list has settled (or the first pass has waited its limit): an app not reached
   * yet has no report, and counting the replica then would take every such app back to `RollingOut`.
   */
  #reportsComplete(): boolean {
    return this.#notServingReason() === undefined && this.#firstPassDone();
  }

  #firstPassDone(): boolean {
    const pass = this.#firstPass;
    if (!pass?.done()) return false;
    if (pass.pendingCount > 0 && !this.#firstPassOverdueLogged) {
      this.#firstPassOverdueLogged = true;
      this.#log.warn('the first list waited its limit with apps not served yet: their deploys keep failing', { apps: pass.pending.slice(0, 20), count: pass.pendingCount });
    }
    return true;
  }

  /**
   * The on-demand policy (docs/runtime.md, "Apps served on demand"): the apps of the first list wait for their
   * first request, so a new replica goes through them quickly; a new build or app deployed otherwise (after the
   * list, or to an app of it already reached) is prepared at once, so a broken one is reported and the deploy's
   * first request is warm, even while the rest of the list is gone through.
   */
  #onDemandOptions(config: OnDemandConfig): OnDemandOptions {
    return { maxApps: config.maxApps, cacheBytes: config.cacheBytes, assetRulesPerShard: config.assetRulesPerShard, eagerBuilds: (key) => this.#firstPass !== undefined && !this.#firstPass.has(key) };
  }

  /** Whom `project`'s use of the replica's shared bounds counts against: its creator, once the Projects are known. */
  readonly #accountOf = (project: string): string => projectAccount(project, this.#projects?.get(project));

  /**
   * A request for a host no deployed app has, before the apps are listed (the app is looked up: `#lookUp`) or while
   * the first list is being gone through: the apps of that list the host may name are reconciled before the rest,
   * and the request waits for them (at most the on-demand first request's wait), so a replica, which takes traffic
   * before it has gone through its apps, does not answer 404 for an app it simply has not got to.
   */
  #unrouted(host: string): Promise<boolean> | undefined {
    const pass = this.#firstPass;
    if (!pass) return this.#unlisted ? this.#lookUp(host) : undefined;
    const controller = this.#controller;
    if (pass.done() || !controller || !this.#appHosts) return undefined;
    const pending = this.#appHosts.appsAt(host).filter((key) => pass.has(key));
    if (pending.length === 0) return undefined;
    // An app whose deploy is failing waits its backoff like any other: a request neither skips it nor waits on
    // it, and is answered 503 to retry (the replica takes traffic during its first list: not a 404 for an app it has).
    const waiting = pending.filter((key) => controller.queue.numRequeues(key) === 0);
    if (waiting.length === 0) return Promise.resolve(false);
    for (const key of waiting) if (pass.promote(key)) controller.enqueue(key, 'urgent');
    return pass.whenSettled(waiting, UNROUTED_WAIT_MS);
  }

  /**
   * Before the apps are listed: the app is looked up by its host, for at most the first list's wait. Found, or known
   * not to exist, the request is routed again; a lookup that found the list done meanwhile hands over to it.
   */
  async #lookUp(host: string): Promise<boolean> {
    const lookup = this.#unlisted?.lookup(host);
    if (!lookup) return false;
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<'retry'>((resolve) => (timer = setTimeout(resolve, UNROUTED_WAIT_MS, 'retry')));
    const found = await Promise.race([lookup, outOfTime]).finally(() => clearTimeout(timer));
    if (found !== 'retry') return true;
    return this.#firstPass ? (this.#unrouted(host) ?? true) : false;
  }

  report(namespace: string, app: string): RuntimeAppReport | undefined {
    const engine = this.#engine;
    const quarantine = engine?.limits.quarantine(`${namespace}/${app}`);
    const failed = engine?.preparationFailure(namespace, app);
    const refused = failed && classifyDeployError(failed.error, failedBuildOf(failed.error, failed.app));
    return reportFor(
      namespace,
      app,
      this.#records.get(`${namespace}/${app}`),
      engine?.served(namespace, app),
      quarantine && { reason: quarantine.reason, until: new Date(quarantine.until).toISOString(), message: engine!.limits.why(quarantine.reason, quarantine.project, quarantine.sustained) },
      this.#rolloutCounts?.get(`${namespace}/${app}`),
      refused?.terminal ? refused.failure : undefined,
    );
  }

  /** The reports of every app this replica serves or acted on; with `projects`, of theirs only (cheaper: no walk over every app). */
  reports(projects?: ReadonlySet<string>): RuntimeAppReport[] {
    const keys = new Set<string>();
    if (projects === undefined) {
      for (const s of this.#engine?.list() ?? []) keys.add(`${s.project}/${s.appId}`);
      for (const app of this.#informer?.list() ?? []) if (this.#records.has(objectKey(app))) keys.add(objectKey(app));
    } else {
      for (const project of projects) {
        for (const key of this.#engine?.keysIn(project) ?? []) keys.add(key);
        for (const app of this.#informer?.list(project) ?? []) if (app.metadata?.namespace === project && this.#records.has(objectKey(app))) keys.add(objectKey(app));
      }
    }
    return [...keys].sort().flatMap((key) => {
      const [namespace = '', app = ''] = key.split('/');
      return this.report(namespace, app) ?? [];
    });
  }

  /**
   * What the RuntimeReplicaReports say (with `projects`, of theirs only): for each project with apps, how far this
   * replica has acted on them, and the reports of its apps less those that mark implies (`impliedReport`: an app
   * whose latest change is at or before the mark, served just as it asks, whatever its hosts: the operator decides
   * those as the replicas route them, `AssignedHosts`). So a project of such apps has a report of a few hundred
   * bytes, whatever its number of apps.
   */
  #published(projects?: ReadonlySet<string>): Pick<ReplicaSnapshot, 'apps' | 'marks'> {
    const informer = this.#informer;
    const reports = this.reports(projects);
    if (!informer || this.#publisher?.marksKept === false) return { apps: reports };
    const acted = new Map<string, string | undefined>();
    const withApps = projects
      ? [...projects].filter((project) => informer.list(project).some((app) => app.metadata?.namespace === project))
      : new Set(informer.list().map((app) => app.metadata?.namespace ?? ''));
    for (const project of withApps) if (project) acted.set(project, this.#marks.mark(project));
    const defaultHost = this.#defaultHostSettings();
    const apps = reports.filter((report) => {
      const mark = acted.get(report.namespace);
      const app = mark === undefined ? undefined : informer.get(`${report.namespace}/${report.app}`);
      if (!app || compareResourceVersions(app.metadata?.resourceVersion, mark) > 0) return true;
      // Its hosts are not compared: the operator decides them for the status by the rule this replica routes by.
      const implied = impliedReport(app, defaultHost);
      return !implied || !isDeepStrictEqual({ ...report, hosts: implied.hosts }, implied);
    });
    return { apps, marks: { acted, defaultHost } };
  }

  #defaultHostSettings(): DefaultHostSettings {
    const { baseDomain, publicScheme, publicPort } = this.#config;
    return { domain: baseDomain, scheme: publicScheme, ...(publicPort !== undefined ? { port: publicPort } : {}) };
  }

  /** Where cw-api reaches the status port: configured, else the pod's address, else this machine's (loopback for every address). */
  #statusURL(): string | undefined {
    const { statusURL, statusHost, podIP } = this.#config;
    if (statusURL) return statusURL;
    if (this.#status === undefined) return undefined;
    const host = podIP ?? (['0.0.0.0', '::', ''].includes(statusHost) ? '127.0.0.1' : statusHost);
    return `http://${host.includes(':') ? `[${host}]` : host}:${this.#status.port}`;
  }

  /** The SQL endpoint apps may reach, checked against where the rest of the platform listens (throws when shared). */
  async #databaseEgress(config: RuntimeServerConfig, url: string, kubeServer: string): Promise<DatabaseEgress> {
    const platformHosts = [config.host, config.statusHost, new URL(kubeServer).hostname, ...(config.s3.endpoint ? [new URL(config.s3.endpoint).hostname] : [])];
    const egress = new DatabaseEgress({ url, platformHosts, log: this.#log.child({ component: 'database-egress' }) });
    await egress.check();
    return egress;
  }

  async start(): Promise<void> {
    const config = this.#config;
    // Before anything listens: an endpoint on an address the platform shares stops the start.
    const kube = loadKubeConnection(config.kubeconfig, 'cw-runtime');
    const databaseEgress = config.databaseUrl ? await this.#databaseEgress(config, config.databaseUrl, kube.server) : undefined;
    this.#status = await startStatusServer({
      port: config.statusPort,
      host: config.statusHost,
      registry: this.registry,
      healthy: () => !this.#stopping,
      notReady: () => this.notReady(),
      report: (namespace, app) => this.report(namespace, app),
      reports: () => this.reports(),
      logStreamsPerCaller: config.logStreamsPerCaller,
      metrics: () => {
        const sampler = this.#sampler;
        const window = this.#metricsWindow;
        return (
          sampler && {
            app: async (namespace, app, since) => (await sampler.fresh(), window.app(`${namespace}/${app}`, since)),
            namespace: async (namespace, since) => (await sampler.fresh(), window.namespaceTotals(namespace, since)),
          }
        );
      },
      ...(config.statusToken ? { token: config.statusToken } : {}),
      logs: () => {
        const engine = this.#engine;
        return (
          engine && { recentPerApp: engine.logs.recentPerApp, recent: (key, limit) => engine.logs.recent(key, limit), follow: (key, listener, dropped) => engine.followLogs(key, listener, dropped) }
        );
      },
    });
    this.#log.info('serving status, probes and metrics', { port: this.#status.port });

    const dataDir = config.dataDir ?? (this.#ownDataDir = await mkdtemp(join(tmpdir(), 'cw-runtime-')));
    const store = new S3ObjectStore({ config: config.s3, bucket: config.bucket, registry: this.registry });
    const engine = (this.#engine = new RuntimeEngine({
      artifacts: new S3ArtifactSource(store),
      dataDir,
      baseDomain: config.baseDomain,
      publicScheme: config.publicScheme,
      ...(config.publicPort !== undefined ? { publicPort: config.publicPort } : {}),
      listen: { port: config.port, host: config.host },
      trustForwardedHeaders: config.trustForwardedHeaders,
      ...(config.affinityKey ? { affinityKey: config.affinityKey } : {}),
      connections: config.connections,
      webSocketsPerProject: config.webSocketsPerProject,
      requestBodyTimeoutMs: config.requestBodyTimeoutMs,
      ...(config.workerdBinary ? { workerdBinary: config.workerdBinary } : {}),
      builds: { concurrency: config.prepareConcurrency, capacityBytes: Math.floor(config.dataDirSizeBytes * BUILDS_SHARE), projectQuotaBytes: config.projectUnpackedQuota },
      shards: config.shards,
      ...(config.onDemand ? { onDemand: this.#onDemandOptions(config.onDemand) } : {}),
      limits: config.limits,
      quarantine: config.quarantine,
      // A quarantine starting or ending changes the app's report: the operator reports it on the RuntimeApp.
      onQuarantine: (key) => this.#publisher?.changed(projectOfKey(key)),
      // So is a build found broken by its first request here (an app prepared on demand).
      onPrepared: (key) => this.#publisher?.changed(projectOfKey(key)),
      ...(databaseEgress ? { outboundAllow: () => databaseEgress.allow() } : {}),
      ...(config.outboundDeny.length > 0 ? { outboundDeny: config.outboundDeny } : {}),
      accountOf: this.#accountOf,
      unrouted: (host) => this.#unrouted(host),
      // ACME HTTP-01 challenges are answered before routing (the TLS part exists once the informers do).
      answer: (req, res) => this.#tls?.answer(req, res) ?? false,
      // Each app's redirect and HSTS, from its RuntimeApp as the informer has it now (no reload needed).
      https: httpsPolicy({
        settings: (app) => (this.#informer?.get(app) ?? (this.#firstPass ? undefined : this.#unlisted?.app(app)))?.spec.https,
        hasCertificate: (host) => this.#tls?.hasCertificate(host) ?? false,
        publicHttpsPort: config.publicHttpsPort,
      }),
      log: this.#log.child({ component: 'engine' }),
    }));
    await engine.start();
    requestMetrics(this.registry, engine);
    this.#sampler = new MetricsSampler(engine, this.#metricsWindow, this.#log.child({ component: 'metrics-window' }));
    this.#sampler.start();
    // Apps in a rollout: their per-release counts reach the replica's report (the operator's analysis) as they move.
    this.#rolloutCounts = new RolloutCountsReader(engine, (key) => this.#publisher?.changed(projectOfKey(key)), this.#log.child({ component: 'rollout-counts' }));
    this.#rolloutCounts.start();
    this.#entryPort = engine.address.port;
    this.#log.info('serving apps', { port: this.#entryPort, baseDomain: config.baseDomain, dataDir, shards: config.shards, limits: config.limits });
    if (config.limits.configuredShardMemoryMb !== undefined) {
      this.#log.warn("each shard's memory bound lowered so that every shard at its bound fits the container's memory limit", {
        shardMemoryMb: config.limits.shardMemoryMb,
        configuredShardMemoryMb: config.limits.configuredShardMemoryMb,
        shards: config.shards,
      });
    }

    const informer = (this.#informer = createInformer<RuntimeApp>(kube, RUNTIME_APPS, {
      ...(config.watchNamespace ? { namespace: config.watchNamespace } : {}),
      project: projectRuntimeApp,
      onError: (err, info) => this.#log.warn('informer error', { resource: 'runtimeapps', phase: info.phase, retryInMs: info.retryInMs, err }),
    }));
    // Custom host names are served once their AppHostname is active (nothing writes them into the app's spec).
    const hostnames = (this.#hostnames = createInformer<AppHostname>(kube, APP_HOSTNAMES, {
      ...(config.watchNamespace ? { namespace: config.watchNamespace } : {}),
      project: projectAppHostname,
      onError: (err, info) => this.#log.warn('informer error', { resource: 'apphostnames', phase: info.phase, retryInMs: info.retryInMs, err }),
    }));
    // Which deploy host names a project may have: its part of the base domain and its managed domains.
    const domains = (this.#domains = createInformer<ProjectDomain>(kube, PROJECT_DOMAINS, {
      ...(config.watchNamespace ? { namespace: config.watchNamespace } : {}),
      onError: (err, info) => this.#log.warn('informer error', { resource: 'projectdomains', phase: info.phase, retryInMs: info.retryInMs, err }),
    }));
    // Who holds which name, installation-wide: a name is served only by the project its claim names.
    const domainClaims = (this.#domainClaims = createInformer<DomainClaim>(kube, DOMAIN_CLAIMS, {
      onError: (err, info) => this.#log.warn('informer error', { resource: 'domainclaims', phase: info.phase, retryInMs: info.retryInMs, err }),
    }));
    const hostnameClaims = (this.#hostnameClaims = createInformer<HostnameClaim>(kube, HOSTNAME_CLAIMS, {
      onError: (err, info) => this.#log.warn('informer error', { resource: 'hostnameclaims', phase: info.phase, retryInMs: info.retryInMs, err }),
    }));
    // Apps' database variables: the Databases hold no secret (their status names the app-token Secret and its
    // generation); the Secrets are read one by one where an app needs them.
    const databases = (this.#databases = createInformer<Database>(kube, DATABASES, {
      ...(config.watchNamespace ? { namespace: config.watchNamespace } : {}),
      onError: (err, info) => this.#log.warn('informer error', { resource: 'databases', phase: info.phase, retryInMs: info.retryInMs, err }),
    }));
    // The certificates served by SNI and the HTTP-01 challenges answered, for names their project may serve.
    const certificates = (this.#certificates = createInformer<TlsCertificate>(kube, TLS_CERTIFICATES, {
      ...(config.watchNamespace ? { namespace: config.watchNamespace } : {}),
      onError: (err, info) => this.#log.warn('informer error', { resource: 'tlscertificates', phase: info.phase, retryInMs: info.retryInMs, err }),
    }));
    // Whom each project's use of the shared bounds counts against. Until they are listed, each project is its own
    // account (a few seconds at a start): nothing waits for them. A replica confined to one namespace leaves
    // cluster-scoped Projects alone (as the operator does), its project its own account. Without the RBAC to list
    // them, the same: said once (projects-access.ts).
    const projectsAccess = projectsAccessLog(this.#log);
    const projects = (this.#projects = config.watchNamespace
      ? undefined
      : createInformer<Project>(kube, PROJECTS, { project: projectAccountView, onError: projectsAccess.onError, onListed: () => projectsAccess.listed() }));
    // Subscribed before the serving controller: a change is pending for the mark before its reconcile can begin.
    informer.onChange((app) => this.#marks.changed(app));
    informer.onQuietChange((app) => this.#marks.changedQuietly(app));
    const appHosts = (this.#appHosts = new AppHosts(config.baseDomain));
    appHosts.follow(informer, hostnames);
    const names = new NamesOnDemand({ listed: { baseDomain: config.baseDomain, domains, domainClaims }, hostnameClaims, hostnames, reads: nameReads(kube, config.watchNamespace) });
    const claimSources = names.sources;
    const tls = (this.#tls = new RuntimeTls({
      certificates,
      mayServe: (namespace, host) => serveRefusal(namespace, host, factsFromClaims(claimSources)) === undefined,
      prepareName: (host) => names.prepare(host)?.then((view) => (namespace: string, name: string) => serveRefusal(namespace, name, factsFromClaims(view)) === undefined),
      registry: this.registry,
      log: this.#log,
    }));
    const secrets = objectClient<SecretObject>(kube, SECRETS);
    const databaseSources = { source: databases, tokens: new AppTokenReader((namespace, name) => secrets.get(namespace, name)), ...(config.databaseUrl ? { endpoint: config.databaseUrl } : {}) };
    const records = this.#records;
    this.#controller = servingController({
      apps: informer,
      hostnames,
      names: { domains, domainClaims, hostnameClaims, baseDomain: config.baseDomain, appsNamed: (host) => appHosts.appsAt(host), appsInZone: (zone) => appHosts.appsInZone(zone) },
      databases: databaseSources,
      engine,
      records,
      marks: this.#marks,
      metrics: servingMetrics(this.registry, engine, records, () => this.#firstPass?.pendingCount ?? 0),
      registry: this.registry,
      log: this.#log,
      workers: config.workers,
      accountOf: this.#accountOf,
      onReconciled: (key) => {
        this.#firstPass?.settled(key);
        this.#rolloutCounts?.refresh();
        this.#publisher?.changed(projectOfKey(key));
      },
    });
    // Found by the operator and the API through this object and its Lease: nobody configures an address. Written
    // before the informers list (taking no traffic, its reports not counted yet), so the operator knows a replica
    // is on its way and the apps keep their status (a lone replica's restart rewrites none; docs/runtime.md).
    const publisher = (this.#publisher = new ReplicaPublisher({
      kube,
      identity: config.replica,
      leaseDurationSeconds: config.leaseDurationSeconds,
      snapshot: (projects) => ({ ready: this.#reportsComplete(), takesTraffic: this.#notServingReason() === undefined, statusURL: this.#statusURL(), ...this.#published(projects) }),
      lazily: () => this.#marks.takeQuietlyMoved(),
      log: this.#log.child({ component: 'replica' }),
    }));
    await this.#startPublishing(publisher);
    this.#log.info('publishing replica report', { namespace: config.replica.namespace, replica: config.replica.name });
    // The RuntimeApps, one per app, take a minute and more to list in a large installation, and so do the
    // HostnameClaims and AppHostnames where apps have custom host names (one each per name). What else an app's
    // admission and its certificates read (domains and their claims, databases, certificates) is listed before
    // traffic; a custom host name's claim and AppHostname are read by name until theirs have listed (`names`), so a
    // name is admitted and its certificate served exactly as once everything is listed.
    const admissionCaches = [domains, domainClaims, databases, certificates];
    for (const i of [informer, hostnames, hostnameClaims, ...admissionCaches]) i.start();
    projects?.start();
    await Promise.all(admissionCaches.map((i) => i.waitForSync(this.#abort.signal)));
    // Once the certificates are known, so the first handshakes find theirs.
    if (config.https) await tls.listen(config.https, store, (server) => engine.serveOn(server));
    if (config.onDemand) {
      this.#unlisted = this.#unlistedApps(kube, config, names, databaseSources);
      this.#unlistedUntil = Date.now() + UNLISTED_LIMIT_MS;
      // Readiness is looked at again when the limit passes (probes may be far apart; the RuntimeReplica follows it).
      setTimeout(() => this.notReady(), UNLISTED_LIMIT_MS + 1).unref();
      this.#log.info('taking traffic before the apps are listed: an app asked for is looked up by its host');
      publisher.changed();
    }
    // The controller decides every app from its caches: the host names' too.
    await Promise.all([informer, hostnames, hostnameClaims].map((i) => i.waitForSync(this.#abort.signal)));
    // Before the controller's workers start, so no reconcile can finish before its key is counted. The apps a lookup
    // routed are reconciled too: one deleted meanwhile is no longer listed.
    const listed = informer.list().map(objectKey);
    const lookedUp = this.#unlisted?.keys() ?? [];
    const lookedUpOnly = lookedUp.filter((key) => !informer.get(key));
    this.#firstPass = new FirstPass([...listed, ...lookedUpOnly]);
    for (const key of lookedUpOnly) this.#controller.enqueue(key);
    this.#unlisted = undefined;
    this.#log.info('informer synced', { apps: this.#firstPass.pendingCount, lookedUp: lookedUp.length });
    // Now that its first list is known, every report may have changed, and whether it takes traffic.
    publisher.changed();
    await this.#controller.start(this.#abort.signal);
  }

  /** The lookups of apps asked for before the list: reads of one app, or of one project's apps, in the namespace served. */
  #unlistedApps(kube: KubeConnection, config: RuntimeServerConfig, names: NamesOnDemand, databases: DatabaseSources): UnlistedApps {
    const apps = objectClient<RuntimeApp>(kube, RUNTIME_APPS);
    return new UnlistedApps({
      baseDomain: config.baseDomain,
      ...(config.watchNamespace ? { namespace: config.watchNamespace } : {}),
      reads: {
        app: async (namespace, name) => {
          const app = await apps.get(namespace, name);
          return app && projectRuntimeApp(app);
        },
        appsIn: async (namespace) => (await apps.list(namespace)).items.map(projectRuntimeApp),
      },
      names: names.sources,
      prepareName: (host) => names.prepare(host),
      databases,
      // Too late once the informers have listed: the serving controller decides every app from then on.
      deploy: async (deployment, fallback, refusedBefore) => {
        if (this.#firstPass || !this.#engine) return false;
        await this.#engine.deploy(deployment, fallback, refusedBefore);
        return true;
      },
      log: this.#log.child({ component: 'unlisted-apps' }),
    });
  }

  /**
   * The publisher's first writes, retried (1 s doubling to 30 s) until they land or the replica stops: they are the
   * process's first writes to the apiserver, and a busy apiserver or RBAC not bound yet on a fresh install is
   * something to wait out, as the informers do, not a crash.
   */
  async #startPublishing(publisher: ReplicaPublisher): Promise<void> {
    for (let waitMs = 1000; ; waitMs = Math.min(waitMs * 2, 30_000)) {
      try {
        await publisher.start();
        return;
      } catch (err) {
        if (this.#abort.signal.aborted) throw err;
        this.#log.warn('cannot publish the replica yet; retrying', { err, retryInMs: waitMs });
        await sleep(waitMs, undefined, { signal: this.#abort.signal }).catch(() => {});
        if (this.#abort.signal.aborted) throw err;
      }
    }
  }

  /** Stops reconciling, lets requests in flight finish (bounded), then stops workerd. Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#abort.abort();
    // First, so the operator stops counting this replica (and the API its readiness) before it goes.
    await this.#publisher?.stop().catch((err: unknown) => this.#log.warn('cannot remove the replica report', { err }));
    await this.#controller?.stop();
    await this.#rolloutCounts?.stop();
    this.#sampler?.stop();
    this.#informer?.stop();
    this.#hostnames?.stop();
    this.#domains?.stop();
    this.#domainClaims?.stop();
    this.#hostnameClaims?.stop();
    this.#databases?.stop();
    this.#certificates?.stop();
    this.#projects?.stop();
    // HTTPS connections drain with the entry point's; those still open when workerd has stopped are closed.
    const https = this.#tls?.close();
    await this.#engine?.stop(STOP_DRAIN_MS);
    https?.closeAll();
    await https?.drained;
    await this.#status?.close();
    if (this.#ownDataDir) await rm(this.#ownDataDir, { recursive: true, force: true });
    this.#log.info('stopped');
  }
}

/** The project of an app key (`project/app`). */
function projectOfKey(key: string): string {
  return key.slice(0, key.indexOf('/'));
}
