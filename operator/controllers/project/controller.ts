import type { Registry } from 'prom-client';
import type { Project } from '../../../src/apis/v1alpha1/project.ts';
import { setCondition, statusChanged, type ConditionUpdate } from '../../../src/conditions/index.ts';
import { API_VERSION, objectClient, type Informer, type KubeConnection, type KubeObject } from '../../../src/kube/index.ts';
import { NAMESPACES, PROJECT_LABEL, PROJECTS } from '../../../src/platform/resources.ts';
import { Controller } from '../../runtime/controller.ts';
import type { Logger } from '../../runtime/log.ts';

export interface ProjectControllerDeps {
  kube: KubeConnection;
  projects: Informer<Project>;
  namespaces: Informer<KubeObject>;
  registry: Registry;
  log: Logger;
  now?: () => Date;
}

/**
 * Gives each Project the namespace of the same name, owned by the Project through an owner reference, so
 * deleting the Project lets the garbage collector delete the namespace and everything in it. A namespace
 * of that name that the project does not own is never adopted: the project reports NamespaceConflict.
 */
export function projectController(deps: ProjectControllerDeps): Controller<Project> {
  const projects = objectClient<Project>(deps.kube, PROJECTS);
  const namespaces = objectClient<KubeObject>(deps.kube, NAMESPACES);
  const now = deps.now ?? (() => new Date());
  return new Controller<Project>({
    name: 'project',
    kind: 'Project',
    source: deps.projects,
    owns: [{ kind: 'Namespace', source: deps.namespaces, mapToOwner: (ns) => ownerProject(ns) }],
    registry: deps.registry,
    log: deps.log,
    reconcile: async (key) => {
      const project = deps.projects.get(key);
      if (!project || project.metadata?.deletionTimestamp) return;
      const name = project.metadata?.name ?? key;
      let namespace = deps.namespaces.get(name);
      if (!namespace) {
        // Server-side apply is idempotent: a crash after this write and a rerun apply the same object.
        namespace = await namespaces.apply(
          {
            metadata: {
              name,
              labels: { [PROJECT_LABEL]: name },
              ownerReferences: [{ apiVersion: API_VERSION, kind: 'Project', name, uid: project.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
            },
          },
          { fieldManager: 'cloudwright-operator' },
        );
      }
      const owned = ownerProject(namespace).includes(name) && namespace.metadata?.ownerReferences?.some((r) => r.uid === project.metadata?.uid);
      const updates: ConditionUpdate[] = owned
        ? [
            { type: 'NamespaceReady', status: 'True', reason: 'NamespaceOwned', message: `Namespace ${name} holds the project's resources.` },
            { type: 'Ready', status: 'True', reason: 'NamespaceOwned', message: 'The project is ready.' },
          ]
        : [
            { type: 'NamespaceReady', status: 'False', reason: 'NamespaceConflict', message: `A namespace named ${name} already exists and is not owned by this project; delete it or choose another project id.` },
            { type: 'Ready', status: 'False', reason: 'NamespaceConflict', message: `Namespace ${name} belongs to something else.` },
          ];
      let conditions = project.status?.conditions ?? [];
      for (const update of updates) conditions = setCondition(conditions, update, project.metadata?.generation, now()).conditions;
      const status = { ...project.status, conditions, observedGeneration: project.metadata?.generation, ...(owned ? { namespace: name } : {}) };
      if (!statusChanged(project.status, status)) return;
      await projects.patchStatus('', name, { metadata: { resourceVersion: project.metadata?.resourceVersion }, status });
    },
  });
}

function ownerProject(namespace: KubeObject): string[] {
  return (namespace.metadata?.ownerReferences ?? []).filter((r) => r.kind === 'Project' && r.controller).map((r) => r.name);
}
