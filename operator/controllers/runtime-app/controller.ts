import type { Registry } from 'prom-client';
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import type { RuntimeApp, RuntimeAppStatus } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition, statusChanged } from '../../../src/conditions/index.ts';
import { objectClient, type Informer, type KubeConnection } from '../../../src/kube/index.ts';
import { buildResourceName } from '../../../src/platform/artifact-keys.ts';
import { RUNTIME_APPS } from '../../../src/platform/resources.ts';
import { Controller, type OwnsSpec } from '../../controller-runtime/controller.ts';
import type { EventRecorder } from '../../controller-runtime/events.ts';
import type { Logger } from '../../controller-runtime/log.ts';
import { controllerRateLimiter } from '../../controller-runtime/rate-limiter.ts';
import { desiredStatus, followUp, Reasons, type RuntimeObservation } from './desired-status.ts';
import { RuntimeUnavailableError, type RuntimeStatus } from './runtime-status.ts';

export interface RuntimeAppControllerDeps {
  kube: KubeConnection;
  apps: Informer<RuntimeApp>;
  /** The Build resources (for BuildNotFound); without them a named build is assumed to exist. */
  builds?: Informer<Build>;
  /** The runtime to ask; without one, apps with a build report RuntimeNotConfigured. */
  runtime?: RuntimeStatus;
  events: EventRecorder;
  registry: Registry;
  log: Logger;
  now?: () => Date;
}

/** Ready reasons that need someone's attention (Event type Warning). */
const WARNINGS: ReadonlySet<string> = new Set([Reasons.BuildFailed, Reasons.BuildNotFound, Reasons.RuntimeUnavailable]);

/** With a runtime, look again this often even when nothing changed, so drift (a replica restarted into a failure) shows. */
const RUNTIME_RESYNC_MS = 5 * 60 * 1000;

/**
 * Reconciles RuntimeApps' status: reads the app from the cache, asks the runtime (cw-runtime's status
 * endpoint) how it serves the app, computes the status and writes it only when it changed. Serving is
 * cw-runtime's job, not this controller's: it watches the same RuntimeApps. A Build appearing re-checks its
 * app. An Event is recorded only when Ready changes, after the status write: a restart re-derives the same
 * status, finds nothing to write and so records nothing again.
 */
export function runtimeAppController(deps: RuntimeAppControllerDeps): Controller<RuntimeApp> {
  const apps = objectClient<RuntimeApp>(deps.kube, RUNTIME_APPS);
  const now = deps.now ?? (() => new Date());
  const owns: OwnsSpec[] = deps.builds
    ? [{ kind: 'Build', source: deps.builds, mapToOwner: (build) => buildOwnerKeys(build as Build) }]
    : [];

  const observe = async (app: RuntimeApp, namespace: string, name: string, log: Logger): Promise<RuntimeObservation> => {
    const buildId = app.spec.activeBuildId;
    if (!deps.runtime) return { kind: 'not-configured' };
    if (!buildId) return { kind: 'observed', replicas: [], buildExists: false };
    const buildExists = !deps.builds || deps.builds.get(`${namespace}/${buildResourceName(name, buildId)}`) !== undefined;
    try {
      return { kind: 'observed', replicas: await deps.runtime.app(namespace, name), buildExists };
    } catch (err) {
      if (!(err instanceof RuntimeUnavailableError)) throw err;
      log.warn('runtime unavailable', { err });
      return { kind: 'unavailable' };
    }
  };

  return new Controller<RuntimeApp>({
    name: 'runtimeapp',
    kind: 'RuntimeApp',
    source: deps.apps,
    owns,
    registry: deps.registry,
    log: deps.log,
    workers: 2,
    // client-go's default backoff, capped at a minute per key: while a build or the runtime is missing, the
    // status is re-checked that often (later only when hundreds of keys fail at once: the overall bucket).
    rateLimiter: controllerRateLimiter<string>({ maxMs: 60_000 }),
    ...(deps.runtime ? { resyncPeriodMs: RUNTIME_RESYNC_MS } : {}),
    reconcile: async (key, { namespace, name, log }) => {
      const app = deps.apps.get(key);
      if (!app || app.metadata?.deletionTimestamp) return;
      const status = desiredStatus(app, now(), await observe(app, namespace, name, log));
      const next = followUp(status, now());
      if (!statusChanged(app.status, status)) return next;
      const before = findCondition(app.status?.conditions, 'Ready');
      const written = await apps.patchStatus(namespace, name, {
        metadata: { resourceVersion: app.metadata?.resourceVersion },
        status: statusPatch(app.status, status),
      });
      const after = findCondition(written.status?.conditions, 'Ready');
      if (after && (before?.status !== after.status || before.reason !== after.reason)) {
        await deps.events.event(written, WARNINGS.has(after.reason) ? 'Warning' : 'Normal', after.reason, after.message ?? '');
      }
      return next;
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
