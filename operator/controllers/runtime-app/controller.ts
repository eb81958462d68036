import type { Registry } from 'prom-client';
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import type { RuntimeApp, RuntimeAppStatus } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition, statusChanged } from '../../../src/conditions/index.ts';
import { objectClient, objectKey, type Informer, type KubeConnection, type KubeObject } from '../../../src/kube/index.ts';
import { buildResourceName } from '../../../src/platform/artifact-keys.ts';
import { RUNTIME_APPS } from '../../../src/platform/resources.ts';
import type { RuntimeReplicaView } from '../../../src/platform/runtime-replicas.ts';
import { Controller, type OwnsSpec } from '../../controller-runtime/controller.ts';
import type { EventRecorder } from '../../controller-runtime/events.ts';
import type { Logger } from '../../controller-runtime/log.ts';
import { controllerRateLimiter } from '../../controller-runtime/rate-limiter.ts';
import { desiredStatus, Reasons, type RuntimeObservation } from './desired-status.ts';
import { ReplicaReports } from './replica-reports.ts';

export interface RuntimeAppControllerDeps {
  kube: KubeConnection;
  apps: Informer<RuntimeApp>;
  /** The Build resources (for BuildNotFound); without them a named build is assumed to exist. */
  builds?: Informer<Build>;
  /** The runtime replicas' RuntimeReplicas and Leases; without them, apps with a build report RuntimeNotConfigured. */
  replicas?: RuntimeReplicaView;
  events: EventRecorder;
  registry: Registry;
  log: Logger;
  now?: () => Date;
}

/** Ready reasons that need someone's attention (Event type Warning). */
const WARNINGS: ReadonlySet<string> = new Set([
  Reasons.BuildFailed,
  Reasons.BuildNotFound,
  Reasons.InsufficientStorage,
  Reasons.QuotaExceeded,
  Reasons.DatabaseNotFound,
  Reasons.DatabaseNotReady,
  Reasons.RuntimeUnavailable,
  Reasons.CPULimitExceeded,
  Reasons.MemoryLimitExceeded,
]);

/**
 * Reconciles RuntimeApps' status: reads the app from the cache, reads how each live runtime replica serves
 * it (its RuntimeReplica, from a watch), computes the status and writes it only when it changed. Serving is
 * cw-runtime's job, not this controller's: it watches the same RuntimeApps. Nothing is polled: a replica's
 * report changing re-checks the apps whose report changed, a replica starting or stopping to count (its
 * Lease; the RuntimeReplica controller removes expired ones) re-checks every app, and a Build appearing
 * re-checks its app. An Event is recorded only when Ready changes, after the status write: a restart
 * re-derives the same status, finds nothing to write and so records nothing again.
 */
export function runtimeAppController(deps: RuntimeAppControllerDeps): Controller<RuntimeApp> {
  const apps = objectClient<RuntimeApp>(deps.kube, RUNTIME_APPS);
  const now = deps.now ?? (() => new Date());
  const reports =
    deps.replicas &&
    new ReplicaReports(
      deps.replicas,
      () => deps.apps.list().map(objectKey),
      () => now().getTime(),
    );
  const owns: OwnsSpec[] = [
    ...(deps.builds ? [{ kind: 'Build', source: deps.builds, mapToOwner: (build: KubeObject) => buildOwnerKeys(build as Build) }] : []),
    ...(reports
      ? [
          { kind: 'RuntimeReplica', source: reports.view.replicas, mapToOwner: reports.onReplica },
          { kind: 'Lease', source: reports.view.leases, mapToOwner: reports.onLease },
        ]
      : []),
  ];

  const observe = (app: RuntimeApp, namespace: string, name: string): RuntimeObservation => {
    const buildId = app.spec.activeBuildId;
    if (!reports) return { kind: 'not-configured' };
    if (!buildId) return { kind: 'observed', replicas: [], buildExists: false };
    const buildExists = !deps.builds || deps.builds.get(`${namespace}/${buildResourceName(name, buildId)}`) !== undefined;
    const replicas = reports.app(namespace, name);
    return replicas.length === 0 ? { kind: 'unavailable' } : { kind: 'observed', replicas, buildExists };
  };

  return new Controller<RuntimeApp>({
    name: 'runtimeapp',
    kind: 'RuntimeApp',
    source: deps.apps,
    owns,
    registry: deps.registry,
    log: deps.log,
    workers: 2,
    // client-go's default backoff, capped at a minute per key, for failed status writes only: a missing build
    // or runtime is waited for by watch, not re-checked.
    rateLimiter: controllerRateLimiter<string>({ maxMs: 60_000 }),
    reconcile: async (key, { namespace, name }) => {
      const app = deps.apps.get(key);
      if (!app || app.metadata?.deletionTimestamp) return;
      const status = desiredStatus(app, now(), observe(app, namespace, name));
      if (!statusChanged(app.status, status)) return;
      const before = findCondition(app.status?.conditions, 'Ready');
      const written = await apps.patchStatus(namespace, name, {
        metadata: { resourceVersion: app.metadata?.resourceVersion },
        status: statusPatch(app.status, status),
      });
      const after = findCondition(written.status?.conditions, 'Ready');
      if (after && (before?.status !== after.status || before.reason !== after.reason)) {
        await deps.events.event(written, WARNINGS.has(after.reason) ? 'Warning' : 'Normal', after.reason, after.message ?? '');
      }
    },
  });
}

/** A merge patch turning `before` into `after`: fields `after` drops are set to null (a merge patch keeps what it does not mention). */
export function statusPatch(before: RuntimeAppStatus | undefined, after: RuntimeAppStatus): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...after };
  for (const field of Object.keys(before ?? {})) if (!(field in after)) patch[field] = null;
  return patch;
}

/** A Build re-checks the app it belongs to (its `spec.app`; the API also makes the app its owner). */
function buildOwnerKeys(build: Build): string[] {
  const namespace = build.metadata?.namespace;
  return namespace && build.spec?.app ? [`${namespace}/${build.spec.app}`] : [];
}
