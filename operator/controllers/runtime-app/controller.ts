import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition, statusChanged } from '../../../src/conditions/index.ts';
import { objectClient, type Informer, type KubeConnection } from '../../../src/kube/index.ts';
import { RUNTIME_APPS } from '../../../src/platform/resources.ts';
import { Controller } from '../../runtime/controller.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { Registry } from 'prom-client';
import type { Logger } from '../../runtime/log.ts';
import { desiredStatus } from './desired-status.ts';

export interface RuntimeAppControllerDeps {
  kube: KubeConnection;
  apps: Informer<RuntimeApp>;
  events: EventRecorder;
  registry: Registry;
  log: Logger;
  now?: () => Date;
}

/**
 * Reconciles RuntimeApps: reads the app from the cache, computes its status and writes it only when it
 * changed. An Event is recorded only when Ready changes, after the status write: a restart re-derives the
 * same status, finds nothing to write and so records nothing again.
 */
export function runtimeAppController(deps: RuntimeAppControllerDeps): Controller<RuntimeApp> {
  const apps = objectClient<RuntimeApp>(deps.kube, RUNTIME_APPS);
  const now = deps.now ?? (() => new Date());
  return new Controller<RuntimeApp>({
    name: 'runtimeapp',
    kind: 'RuntimeApp',
    source: deps.apps,
    registry: deps.registry,
    log: deps.log,
    workers: 2,
    reconcile: async (key, { namespace, name }) => {
      const app = deps.apps.get(key);
      if (!app || app.metadata?.deletionTimestamp) return;
      const status = desiredStatus(app, now());
      if (!statusChanged(app.status, status)) return;
      const before = findCondition(app.status?.conditions, 'Ready');
      const written = await apps.patchStatus(namespace, name, {
        metadata: { resourceVersion: app.metadata?.resourceVersion },
        status,
      });
      const after = findCondition(written.status?.conditions, 'Ready');
      if (after && (before?.status !== after.status || before.reason !== after.reason)) {
        await deps.events.event(written, 'Normal', after.reason, after.message ?? '');
      }
    },
  });
}
