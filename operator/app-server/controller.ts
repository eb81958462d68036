import type { Registry } from 'prom-client';
import type { AppHostname } from '../../src/apis/v1alpha1/app-hostname.ts';
import type { ProjectDomain } from '../../src/apis/v1alpha1/project-domain.ts';
import type { KubeObject } from '../../src/kube/index.ts';
import { heldDomainNames } from '../../src/platform/custom-hostnames.ts';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import type { RuntimeEngine } from '../../src/workerd/index.ts';
import { Controller } from '../controller-runtime/controller.ts';
import type { Logger } from '../controller-runtime/log.ts';
import { ItemExponentialRateLimiter } from '../controller-runtime/rate-limiter.ts';
import type { Source } from '../controller-runtime/source.ts';
import type { AppRecords } from './app-records.ts';
import { allowedHostnames, deploymentOf } from './desired.ts';
import { classifyDeployError } from './failures.ts';
import type { ServingMetrics } from './metrics.ts';

/** The engine calls the reconciler makes (a fake in unit tests). */
export type ServingEngine = Pick<RuntimeEngine, 'deploy' | 'remove' | 'served'>;

export interface ServingControllerDeps {
  apps: Source<RuntimeApp> & { get(key: string): RuntimeApp | undefined };
  /**
   * The AppHostnames (every namespace served): an app is also served on its `active` ones, which change
   * without a new generation of the app. Without them, apps are served on their deploy's host names only.
   */
  hostnames?: Source<AppHostname>;
  /**
   * With the project domains and the runtime's base domain, a deploy's host names are served only where the
   * project may have them (see {@link allowedHostnames}): a RuntimeApp applied with kubectl cannot take
   * another project's names. Without them (unit tests), every deploy host name is served.
   */
  names?: { domains: Source<ProjectDomain>; baseDomain: string };
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
   * replica is ready only when every app of its first pass has settled, so a new replica does not take
   * traffic for an app it cannot serve yet while the old ones are being replaced.
   */
  onReconciled?: (key: string) => void;
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
      .list()
      .filter((a) => a.metadata?.namespace === namespace)
      .map((a) => `${namespace}/${a.metadata?.name}`);
  /** The app's active AppHostnames, sorted (a change of the set is a change of what to serve). */
  const attachedTo = (namespace: string, name: string): string[] =>
    (hostnames?.list() ?? [])
      .filter((h) => h.metadata?.namespace === namespace && h.spec.appRef.name === name && h.status?.state === 'active' && !h.metadata?.deletionTimestamp)
      .map((h) => h.spec.hostname)
      .sort();
  return new Controller<RuntimeApp>({
    name: 'runtime',
    kind: 'RuntimeApp',
    source: deps.apps,
    owns: [
      ...(hostnames ? [{ kind: 'AppHostname', source: hostnames, mapToOwner: (h: KubeObject) => hostnameAppKeys(h as AppHostname) }] : []),
      // A project domain becoming managed (or going) changes which deploy host names its apps may have.
      ...(deps.names ? [{ kind: 'ProjectDomain', source: deps.names.domains, mapToOwner: (d: KubeObject) => appsIn(d.metadata?.namespace) }] : []),
    ],
    registry: deps.registry,
    log: deps.log,
    workers: deps.workers ?? 64,
    // From 50 ms up to a minute: the longest a replica waits before it retries an artifact that was missing.
    // No overall bucket (unlike the operator's controllers): every retry is a read for this replica alone,
    // and the minute is what readiness and docs/runtime.md promise.
    rateLimiter: new ItemExponentialRateLimiter<string>(50, 60_000),
    reconcile: async (key, { namespace, name, log }) => {
      const settled = () => deps.onReconciled?.(key);
      const app = deps.apps.get(key);
      const attached = attachedTo(namespace, name);
      const allowed = app && deps.names ? allowedHostnames(app, heldDomainNames(deps.names.domains.list().filter((d) => d.metadata?.namespace === namespace)), deps.names.baseDomain) : undefined;
      if (app && allowed && allowed.length < (app.spec.hostnames ?? []).length) {
        log.warn('not serving host names the project does not control', { refused: (app.spec.hostnames ?? []).filter((h) => !allowed.includes(h)) });
      }
      const deployment = deploymentOf(app && allowed ? { ...app, spec: { ...app.spec, hostnames: allowed } } : app, attached);
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
      const same = record?.generation === generation && record.buildId === deployment.buildId && (record.attached ?? []).join(' ') === attached.join(' ');
      // The engine changes only through these calls, so a converged app costs nothing on a resync or when
      // its status is written; nor does a refused build, which the engine would refuse again at once.
      if (same && record.servedGeneration === generation && engine.served(namespace, name)?.buildId === deployment.buildId) return settled();
      if (same && record.failure?.reason === 'BuildFailed') return settled();

      records.attempt(key, generation, deployment.buildId, attached);
      const stopTimer = metrics.deploySeconds.startTimer();
      try {
        const served = await engine.deploy(deployment);
        records.served(key, generation);
        stopTimer({ result: 'Served' });
        log.info('serving', { buildId: served.buildId, generation, hosts: served.hosts });
        return settled();
      } catch (err) {
        const { failure, terminal } = classifyDeployError(err, deployment.buildId);
        records.failed(key, failure);
        stopTimer({ result: failure.reason });
        if (failure.reason === 'Retrying') throw err; // an error: counted, logged and retried with backoff
        if (!same || record.failure?.reason !== failure.reason) {
          log.warn(terminal ? 'build cannot be served; not retrying this spec' : failure.reason === 'BuildNotFound' ? 'build not found; retrying' : 'no room for the build; retrying', {
            buildId: deployment.buildId,
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
}

/** An AppHostname re-checks the app it names. */
function hostnameAppKeys(h: AppHostname): string[] {
  const namespace = h.metadata?.namespace;
  return namespace && h.spec?.appRef?.name ? [`${namespace}/${h.spec.appRef.name}`] : [];
}
