import type { Build } from '../src/apis/v1alpha1/build.ts';
import type { Project } from '../src/apis/v1alpha1/project.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { eventWriter, loadKubeConnection, type KubeObject } from '../src/kube/index.ts';
import { BUILDS, NAMESPACES, PROJECTS, RUNTIME_APPS } from '../src/platform/resources.ts';
import { projectController } from './controllers/project/controller.ts';
import { runtimeAppController } from './controllers/runtime-app/controller.ts';
import { HttpRuntimeStatus } from './controllers/runtime-app/runtime-status.ts';
import { EventRecorder } from './runtime/events.ts';
import { Manager, runManager } from './runtime/manager.ts';

/**
 * `cw-operator`: every Cloudwright controller in one process. Configuration comes from the environment:
 * KUBECONFIG (else in-cluster), CW_OPERATOR_PORT (metrics and probes, default 8080), POD_NAMESPACE (where
 * the leader-election Lease lives, default `default`), CW_LEADER_ELECTION=false to run without a Lease,
 * CW_WATCH_NAMESPACE to reconcile one namespace only, CW_RUNTIME_STATUS_URL (cw-runtime's status endpoint;
 * one URL per replica, separated by commas) to report whether apps are served.
 */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const kube = loadKubeConnection(env.KUBECONFIG || undefined);
  const manager = new Manager({
    kube,
    port: Number(env.CW_OPERATOR_PORT ?? 8080),
    leaderElection: env.CW_LEADER_ELECTION === 'false' ? false : { namespace: env.POD_NAMESPACE ?? 'default', name: 'cloudwright-operator' },
  });
  const events = new EventRecorder({ writer: eventWriter(kube), component: 'cloudwright-operator', log: manager.log });
  const common = { kube, registry: manager.registry, events };

  // CW_WATCH_NAMESPACE confines the operator to one namespace (and leaves cluster-scoped kinds alone).
  const watchNamespace = env.CW_WATCH_NAMESPACE || undefined;
  const scope = watchNamespace ? { namespace: watchNamespace } : {};
  // Without a runtime to ask, apps with a build honestly report RuntimeNotConfigured.
  const runtime = HttpRuntimeStatus.fromEnv(env.CW_RUNTIME_STATUS_URL);
  manager.add(
    runtimeAppController({
      ...common,
      apps: manager.informer<RuntimeApp>(RUNTIME_APPS, scope),
      ...(runtime ? { runtime, builds: manager.informer<Build>(BUILDS, scope) } : {}),
      log: manager.log.child({ controller: 'runtimeapp' }),
    }),
  );
  if (!watchNamespace) manager.add(
    projectController({
      ...common,
      projects: manager.informer<Project>(PROJECTS),
      namespaces: manager.informer<KubeObject>(NAMESPACES, { labelSelector: 'cloudwright.dev/project' }),
      log: manager.log.child({ controller: 'project' }),
    }),
  );
  await runManager(manager);
}
