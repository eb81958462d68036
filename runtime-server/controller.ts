import type { Registry } from 'prom-client';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { DomainClaim, HostnameClaim } from '../src/apis/v1alpha1/domain-claim.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import { objectKey, type KubeObject } from '../src/kube/index.ts';
import { isInZone } from '../src/dns/names.ts';
import type { NameFacts } from '../src/platform/host-admission.ts';
import { attachedHostnames, hostnamesByApp, servable } from '../src/runtime-contract/asked-hosts.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { AppDeployment, RuntimeEngine } from './engine/index.ts';
import { Controller } from '../src/controller-runtime/controller.ts';
import { factsFromClaims } from '../src/platform/claim-facts.ts';
import { DemotionTimers } from '../src/platform/demotion-timers.ts';
import type { Logger } from '../src/logging/log.ts';
import { ItemExponentialRateLimiter } from '../src/controller-runtime/rate-limiter.ts';
import type { Source } from '../src/controller-runtime/source.ts';
import type { Database } from '../src/apis/v1alpha1/database.ts';
import type { AppRecords } from './app-records.ts';
import { deploymentOf, planSignature } from './desired.ts';
import { bothLinked, linkedOfPlan, linksDatabase, type DatabaseSources, type Linked } from './linked-environment.ts';
import { servingPlan, type ServingPlan } from '../src/runtime-contract/releases.ts';
import { classifyDeployError, failedBuildOf } from './failures.ts';
import { recordedFallback, refusedBefore, servedInstead } from './recorded-fallback.ts';
import { hostnameAppKey } from '../src/runtime-contract/listed-hosts.ts';
import type { ServingMetrics } from './metrics.ts';

/** The engine calls the reconciler makes (a fake in unit tests). */
export type ServingEngine = Pick<RuntimeEngine, 'deploy' | 'remove' | 'route' | 'served' | 'appsAsking'>;

export interface ServingControllerDeps {
  /** Whom a project's reconciles count against (`RuntimeEngineOptions.accountOf`); default: each project its own. */
  accountOf?: (project: string) => string;
  apps: Source<RuntimeApp> & { get(key: string): RuntimeApp | undefined };
  /**
   * The AppHostnames (every namespace served): an app is also served on its `active` ones, which change
   * without a new generation of the app. Without them, apps are served on their deploy's host names only.
   */
  hostnames?: Source<AppHostname>;
  /**
   * With the project domains, the name claims and the runtime's base domain, an app's host names (its deploy's
   * and its active AppHostnames) are served only where the project may serve them (src/platform/host-admission.ts):
   * a RuntimeApp applied with kubectl cannot take another project's names, and a contested or unclaimed name is
   * served for nobody. Without them (unit tests), every host name is served.
   */
  names?: {
    domains: Source<ProjectDomain>;
    domainClaims: Source<DomainClaim> & { get(key: string): DomainClaim | undefined };
    hostnameClaims: Source<HostnameClaim> & { get(key: string): HostnameClaim | undefined };
    baseDomain: string;
    /**
     * The apps a host may name, from indexes (`AppHosts.appsAt`): a claim on one host name re-checks those, not a
     * walk over every app (at a replica's start, 100,000 claims listed over 100,000 apps cached). Without it, a walk.
     */
    appsNamed?: (host: string) => string[];
    /** The apps with a host name in a zone, from the same indexes (`AppHosts.appsInZone`), for a DomainClaim. Without it, a walk. */
    appsInZone?: (zone: string) => string[];
  };
  /**
   * The Databases (every namespace served) and the reader of their app-token Secrets: an app's
   * `spec.databaseEnvironment` variables get their values from them, and a Database's token generation
   * changing (a rotation) deploys its apps again. Without them, an app with such variables is not deployed
   * (DatabaseNotFound).
   */
  databases?: DatabaseSources & { source: Source<Database> };
  engine: ServingEngine;
  records: AppRecords;
  metrics: ServingMetrics;
  registry: Registry;
  log: Logger;
  /**
   * Concurrent reconciles. Deploys wait for the engine's convergence pass and the engine coalesces what
   * arrives during a rollout, so many workers mean fewer rollouts when many apps change at once (startup).
   */
  workers?: number;
  /**
   * Called once `key` has settled: served, not to be served, or refused for good (a build that cannot load
   * or is not stored). Not after a failure that is retried (the object store or workerd unreachable): a
   * replica's reports count only when every app of its first pass has settled, so the operator does not read
   * an app a new replica cannot serve yet as served by it.
   */
  onReconciled?: (key: string) => void;
  /**
   * Told when a reconcile begins and when its outcome is recorded (served, removed, failed, retried), for the
   * reports' `acted` mark (`acted-marks.ts`): `begin`'s token is handed back to `acted`.
   */
  marks?: { begin(key: string): number | undefined; acted(key: string, token: number | undefined): void };
}

/**
 * Makes this replica serve what every RuntimeApp asks for: its active build with its environment,
 * host names and concurrency limit; an app without a build, or deleted, is not served. Level-based: each
 * reconcile derives the deployment from the cached app and hands it to the engine, which converges (a
 * deploy of what is already served resolves at once). Side effects are in memory only, so any number of
 * replicas run it side by side, with no leader and no finalizer: a replica that starts rebuilds everything
 * from the informer's first list.
 */
export function servingController(deps: ServingControllerDeps): Controller<RuntimeApp> {
  const { engine, records, metrics } = deps;
  const hostnames = deps.hostnames;
  const appsIn = (namespace: string | undefined) =>
    deps.apps
      .list(namespace)
      .filter((a) => a.metadata?.namespace === namespace)
      .map((a) => `${namespace}/${a.metadata?.name}`);
  const byApp = hostnames && hostnamesByApp(hostnames);
  const attachedTo = (namespace: string, name: string): string[] => attachedHostnames(byApp, namespace, name);
  const names = deps.names;
  const facts = (): NameFacts | undefined => names && factsFromClaims({ ...names, hostnames });
  /** Apps of `db`'s namespace with a variable linked to it in a release they may serve (`linksDatabase`). */
  const appsLinkedTo = (db: KubeObject) =>
    deps.apps
      .list(db.metadata?.namespace)
      .filter((a) => a.metadata?.namespace === db.metadata?.namespace && linksDatabase(a, db.metadata?.name ?? ''))
      .map((a) => `${a.metadata?.namespace}/${a.metadata?.name}`);
  /** Apps with a host name in `zone`: a claim on it changes which of them may be served. */
  const appsUnder = (zone: string) =>
    deps.apps
      .list()
      .filter((a) => [...(a.spec.hostnames ?? []), ...attachedTo(a.metadata?.namespace ?? '', a.metadata?.name ?? '')].some((h) => isInZone(h, zone)))
      .map((a) => `${a.metadata?.namespace}/${a.metadata?.name}`);
  const namedBefore = new AppsNamedBefore();
  // A domain's demotion grace running out takes its names from its project's apps with no object changing.
  let enqueueIn: (namespace: string) => void = () => {};
  const demotions =
    names &&
    new DemotionTimers(
      (namespace) => enqueueIn(namespace),
      (key) => names.domains.get(key),
    );
  names?.domains.onChange((d) => demotions?.seen(d, !names.domains.get(objectKey(d))));
  const controller = new Controller<RuntimeApp>({
    name: 'runtime',
    kind: 'RuntimeApp',
    source: deps.apps,
    owns: [
      // Its app, and the apps whose deploy host names it is: an active AppHostname admits its name for its project.
      ...(hostnames
        ? [
            {
              kind: 'AppHostname',
              source: hostnames,
              // And the apps routed the name or asking for it now, and the app it named before: an AppHostname moved to
              // another app is taken from the one it named, even while that one's reconcile has not routed it yet.
              mapToOwner: (h: KubeObject) => {
                const host = (h as AppHostname).spec?.hostname ?? '';
                const before = namedBefore.moved(h as AppHostname, hostnames.get(objectKey(h)) !== undefined);
                const named = hostnameAppKey(h as AppHostname);
                return [...new Set([...(named !== undefined ? [named] : []), ...before, ...(deps.names?.appsNamed?.(host) ?? []), ...engine.appsAsking(host)])];
              },
            },
          ]
        : []),
      // A project domain becoming managed (or going) changes which host names its apps may have; a claim made or
      // given up changes it for every app with a name under it.
      ...(names
        ? [
            { kind: 'ProjectDomain', source: names.domains, mapToOwner: (d: KubeObject) => appsIn(d.metadata?.namespace) },
            { kind: 'DomainClaim', source: names.domainClaims, mapToOwner: (c: KubeObject) => (names.appsInZone ?? appsUnder)(c.metadata?.name ?? '') },
            { kind: 'HostnameClaim', source: names.hostnameClaims, mapToOwner: (c: KubeObject) => (names.appsNamed ? names.appsNamed(c.metadata?.name ?? '') : appsUnder(c.metadata?.name ?? '')) },
          ]
        : []),
      // A Database's app tokens appearing or rotating changes the environment of the apps linked to it.
      ...(deps.databases ? [{ kind: 'Database', source: deps.databases.source, mapToOwner: appsLinkedTo }] : []),
    ],
    registry: deps.registry,
    log: deps.log,
    workers: deps.workers ?? 64,
    // A deploy waits for the checker's turns, and an account with many changes has most of them left for later
    // passes: its reconciles waiting so must not take every worker from the other accounts' deploys (a user's
    // projects share one quarter, as they share one turn in the checker).
    workersPerNamespace: Math.max(1, Math.floor((deps.workers ?? 64) / 4)),
    ...(deps.accountOf ? { namespaceGroup: deps.accountOf } : {}),
    // From 50 ms up to a minute: the longest a replica waits before it retries an artifact that was missing.
    // No overall bucket (unlike the operator's controllers): every retry is a read for this replica alone,
    // and the minute is what readiness and docs/runtime.md promise.
    rateLimiter: new ItemExponentialRateLimiter<string>(50, 60_000),
    onStop: async () => demotions?.stop(),
    reconcile: async (key, { namespace, name, log }) => {
      // Before the app is read: every change the cache had when the token was taken is acted on by this reconcile.
      const token = deps.marks?.begin(key);
      const acted = () => deps.marks?.acted(key, token);
      const settled = () => {
        acted();
        deps.onReconciled?.(key);
      };
      const app = deps.apps.get(key);
      const known = facts();
      const admitted = (hosts: readonly string[]) => (known ? servable(namespace, hosts, known) : { served: [...hosts], refused: [] });
      const attached = admitted(attachedTo(namespace, name));
      const deploy = admitted(app?.spec.hostnames ?? []);
      const refused = [...deploy.refused, ...attached.refused];
      if (app && refused.length > 0) log.warn('not serving host names the project may not serve', { refused });
      const plan: ServingPlan = app ? servingPlan(app) : { kind: 'spec' };
      const resolved = app?.spec.activeBuildId && !app.metadata?.deletionTimestamp ? await linkedOfPlan(deps.databases, app, plan, namespace) : undefined;
      const linked: Linked = resolved ? bothLinked(resolved.env, resolved.canary) : { env: {}, signature: '' };
      const deployment = deploymentOf(
        app ? { ...app, spec: { ...app.spec, hostnames: deploy.served } } : app,
        attached.served,
        resolved && 'env' in resolved.env ? resolved.env.env : {},
        resolved && 'env' in resolved.canary ? resolved.canary.env : {},
      );
      if (!deployment) {
        if (records.has(key) || engine.served(namespace, name)) {
          await engine.remove(namespace, name);
          log.info('app no longer served');
        }
        records.delete(key);
        return settled();
      }
      const generation = app?.metadata?.generation ?? 0;
      const record = records.get(key);
      // A rollout's weight, phase or stable release changes the plan without a new generation (status.rollout).
      const signature = planSignature(plan);
      if ('problem' in linked) {
        // Not deployed without its tokens: what the app served before (if anything) stays, and the report says why.
        const failure = { reason: linked.problem.reason, buildId: deployment.buildId, message: linked.problem.message };
        if (record?.generation !== generation || record.failure?.message !== failure.message) log.warn('cannot resolve the database variables; not deploying this spec', failure);
        // Recorded first: an app routed here is one a later reconcile removes, even if routing it fails.
        if (record?.generation !== generation || record.buildId !== deployment.buildId || record.plan !== signature)
          records.attempt(key, generation, deployment.buildId, hostnamesOf(deployment), '', signature);
        if (records.get(key)?.failure?.message !== failure.message) records.failed(key, failure);
        // Serving nothing of it (started since): the release served before, as the replicas that had it go on doing.
        if (app && !engine.served(namespace, name)) {
          const instead = await servedInstead(deps.databases, app, deployment, namespace);
          if (instead) {
            await engine.deploy(instead).then(
              (served) => log.info('serving the release served before while the spec’s database variables cannot be had', { buildId: served.buildId }),
              (err: unknown) => log.warn('cannot serve the release served before either', { buildId: instead.buildId, err }),
            );
          }
        }
        // Its names follow its objects all the same (the operator says them so).
        await engine.route(namespace, name, deployment.hostnames, failure.reason);
        settled();
        // A Database changing enqueues the app; a Secret does not (it is not watched), so look again with backoff.
        return { requeue: true };
      }
      const same =
        record?.generation === generation &&
        record.buildId === deployment.buildId &&
        (record.plan ?? 'spec') === signature &&
        // Admitted names, deploy host names too: a claim or a domain given or taken changes them, not the generation.
        (record.hostnames ?? []).join(' ') === hostnamesOf(deployment).join(' ') &&
        (record.linked ?? '') === linked.signature;
      // The engine changes only through these calls, so a converged app costs nothing on a resync or when
      // its status is written; nor does a refused build, which the engine would refuse again at once.
      // Not when the last attempt failed: `attempt` recorded what it asked for (names, plan, tokens), so only a
      // deploy that succeeds may take this path, or a change at the same generation would never be applied.
      if (same && !record.failure && record.servedGeneration === generation && engine.served(namespace, name)?.buildId === deployment.buildId) return settled();
      if (same && record.failure?.reason === 'BuildFailed') return settled();

      records.attempt(key, generation, deployment.buildId, hostnamesOf(deployment), linked.signature, signature);
      const stopTimer = metrics.deploySeconds.startTimer();
      try {
        // A replica that has nothing of the app yet (its first deploy here: started since, or the app is new) falls back
        // to what the others served. An app let go is still known to the engine, which keeps its own fallback.
        const fresh = !engine.served(namespace, name) && app !== undefined;
        const fallback = fresh ? await recordedFallback(deps.databases, app, deployment, namespace) : undefined;
        const served = await engine.deploy(deployment, fallback, fresh && refusedBefore(app));
        records.served(key, generation, plan.kind === 'split' ? { release: plan.canary.release, weight: plan.weight } : undefined);
        stopTimer({ result: 'Served' });
        log.info('serving', { buildId: served.buildId, generation, hosts: served.hosts, ...(served.canary ? { canary: served.canary } : {}), ...(plan.kind === 'spec' ? {} : { plan: plan.kind }) });
        return settled();
      } catch (err) {
        const { failure, terminal } = classifyDeployError(err, failedBuildOf(err, deployment));
        records.failed(key, failure);
        stopTimer({ result: failure.reason });
        if (failure.reason === 'Retrying') {
          acted(); // the report says it is retrying
          throw err; // an error: counted, logged and retried with backoff
        }
        if (!same || record.failure?.reason !== failure.reason) {
          log.warn(terminal ? 'build cannot be served; not retrying this spec' : failure.reason === 'BuildNotFound' ? 'build not found; retrying' : 'no room for the build; retrying', {
            buildId: failure.buildId,
            generation,
            reason: failure.reason,
            detail: failure.message,
          });
        }
        // A missing artifact, or no room for it, is a state, not an error: look again with backoff (it may be
        // uploaded yet, room may come).
        settled();
        return terminal ? undefined : { requeue: true };
      }
    },
  });
  enqueueIn = (namespace) => appsIn(namespace).forEach((key) => controller.enqueue(key));
  return controller;
}

/** The names a deployment asks for beyond its default host, sorted: what a change of them is told by. */
function hostnamesOf(deployment: AppDeployment): string[] {
  return [...deployment.hostnames].sort();
}

/**
 * The app each AppHostname named at its last event: one moved to another app must take its name from the app it
 * named, which the engine's assignment may not show yet (that app's reconcile waiting for a pass).
 */
class AppsNamedBefore {
  readonly #named = new Map<string, string>();

  /** The app `h` named before this event, if another; remembers the one it names now (`exists`: not deleted). */
  moved(h: AppHostname, exists: boolean): string[] {
    const key = objectKey(h);
    const before = this.#named.get(key);
    const now = hostnameAppKey(h);
    if (exists && now !== undefined) this.#named.set(key, now);
    else this.#named.delete(key);
    return before !== undefined && before !== now ? [before] : [];
  }
}
