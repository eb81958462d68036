import type { Registry } from 'prom-client';
import type { Project } from '../../../src/apis/v1alpha1/project.ts';
import { setCondition, statusChanged, type ConditionUpdate } from '../../../src/conditions/index.ts';
import { isAlreadyExists, objectClient, type Informer, type KubeConnection, type KubeObject, type ObjectClient } from '../../../src/kube/index.ts';
import { projectNamespace } from '../../../src/platform/project-namespace.ts';
import { NAMESPACES, PROJECTS } from '../../../src/platform/resources.ts';
import { Controller } from '../../controller-runtime/controller.ts';
import type { Logger } from '../../controller-runtime/log.ts';

export interface ProjectControllerDeps {
  kube: KubeConnection;
  projects: Informer<Project>;
  namespaces: Informer<KubeObject>;
  registry: Registry;
  log: Logger;
  now?: () => Date;
  /** How soon a project whose namespace name is taken looks again whether it is free (default a minute). */
  conflictRecheckMs?: number;
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
      // The cache holds only labelled namespaces: one it lacks may still exist. Create, never apply: an
      // apply would merge our label and owner reference into a namespace that exists already, adopting it,
      // and deleting the project would then let the garbage collector delete it.
      const namespace = deps.namespaces.get(name) ?? (await createOrRead(namespaces, name, project));
      const owned = ownerProject(namespace).includes(name) && namespace.metadata?.ownerReferences?.some((r) => r.uid === project.metadata?.uid);
      const updates: ConditionUpdate[] = owned
        ? [
            { type: 'NamespaceReady', status: 'True', reason: 'NamespaceOwned', message: `Namespace ${name} holds the project's resources.` },
            { type: 'Ready', status: 'True', reason: 'NamespaceOwned', message: 'The project is ready.' },
          ]
        : [
            {
              type: 'NamespaceReady',
              status: 'False',
              reason: 'NamespaceConflict',
              message: `A namespace named ${name} already exists and is not owned by this project; delete it or choose another project id.`,
            },
            { type: 'Ready', status: 'False', reason: 'NamespaceConflict', message: `Namespace ${name} belongs to something else.` },
          ];
      let conditions = project.status?.conditions ?? [];
      for (const update of updates) conditions = setCondition(conditions, update, project.metadata?.generation, now()).conditions;
      const status = { ...project.status, conditions, observedGeneration: project.metadata?.generation, ...(owned ? { namespace: name } : {}) };
      if (statusChanged(project.status, status)) await projects.patchStatus('', name, { metadata: { resourceVersion: project.metadata?.resourceVersion }, status });
      // Deleting the other namespace, as the condition advises, sends no event here (it carries no project
      // label, so the cache never held it): look again after a while.
      return owned ? undefined : { requeueAfter: deps.conflictRecheckMs ?? 60_000 };
    },
  });
}

function ownerProject(namespace: KubeObject): string[] {
  return (namespace.metadata?.ownerReferences ?? []).filter((r) => r.kind === 'Project' && r.controller).map((r) => r.name);
}

/** Creates the project's namespace; when one of that name exists already, answers it as it is. */
async function createOrRead(namespaces: ObjectClient<KubeObject>, name: string, project: Project): Promise<KubeObject> {
  try {
    return await namespaces.create(projectNamespace(project));
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    // Ours from an earlier pass the cache has not seen yet, or someone else's: decided by its owner below.
    const existing = await namespaces.get('', name);
    if (!existing) throw err; // deleted meanwhile: the next pass creates it
    return existing;
  }
}
