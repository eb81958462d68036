import type { Registry } from 'prom-client';
import type { Project } from '../../../src/apis/v1alpha1/project.ts';
import { setCondition, statusChanged, type ConditionUpdate } from '../../../src/conditions/index.ts';
import { isAlreadyExists, objectClient, RESOURCE_QUOTAS, ROLE_BINDINGS, type Informer, type KubeConnection, type KubeObject, type ObjectClient } from '../../../src/kube/index.ts';
import { projectNamespace } from './project-namespace.ts';
import { PROJECT_QUOTA_NAME, projectQuotaDrifted, projectResourceQuota, type ResourceQuota } from '../../../src/platform/project-quota.ts';
import { NAMESPACES, PROJECT_LABEL, PROJECTS, TLS_CERTIFICATES } from '../../../src/platform/resources.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { ensureDefaultHostsCertificate } from './default-hosts-certificate.ts';
import { Controller } from '../../../src/controller-runtime/controller.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { bindingChange, OPERATOR_BINDING_NAME, projectRoleBindings, RUNTIME_BINDING_NAME, type ProjectAccess, type RoleBinding } from './operator-access.ts';

export interface ProjectControllerDeps {
  kube: KubeConnection;
  projects: Informer<Project>;
  namespaces: Informer<KubeObject>;
  /** The ResourceQuotas labelled `cloudwright.dev/project` (the project quotas), so a changed one is put back. */
  quotas: Informer<ResourceQuota>;
  /**
   * The operator's access in each project namespace (CW_PROJECT_ROLE), with the RoleBindings labelled
   * `cloudwright.dev/project`; absent: none is bound (the operator's credentials reach project namespaces already).
   */
  access?: { project: ProjectAccess; bindings: Informer<RoleBinding> };
  registry: Registry;
  log: Logger;
  now?: () => Date;
  /** How soon a project whose namespace name is taken looks again whether it is free (default a minute). */
  conflictRecheckMs?: number;
  /** Each project gets a wildcard certificate for its apps' default hosts, `*.<project>.<baseDomain>` (DNS-01 in the base zone). */
  defaultHostsCertificate?: { baseDomain: string };
}

/**
 * Gives each Project the namespace of the same name, owned by the Project through an owner reference, so
 * deleting the Project lets the garbage collector delete the namespace and everything in it. A namespace
 * of that name that the project does not own is never adopted: the project reports NamespaceConflict.
 * Into the project's own namespace it writes the object-count quota (src/platform/project-quota.ts) and, when
 * configured, the operator's and the runtime's RoleBindings there (operator-access.ts), and puts either back when changed or deleted.
 */
export function projectController(deps: ProjectControllerDeps): Controller<Project> {
  const projects = objectClient<Project>(deps.kube, PROJECTS);
  const namespaces = objectClient<KubeObject>(deps.kube, NAMESPACES);
  const quotas = objectClient<ResourceQuota>(deps.kube, RESOURCE_QUOTAS);
  const bindings = objectClient<RoleBinding>(deps.kube, ROLE_BINDINGS);
  const certificates = objectClient<TlsCertificate>(deps.kube, TLS_CERTIFICATES);
  const now = deps.now ?? (() => new Date());
  return new Controller<Project>({
    name: 'project',
    kind: 'Project',
    source: deps.projects,
    owns: [
      { kind: 'Namespace', source: deps.namespaces, mapToOwner: (ns) => ownerProject(ns) },
      { kind: 'ResourceQuota', source: deps.quotas, mapToOwner: (quota) => labelledProject(quota, PROJECT_QUOTA_NAME) },
      ...(deps.access
        ? [{ kind: 'RoleBinding', source: deps.access.bindings, mapToOwner: (binding: KubeObject) => [OPERATOR_BINDING_NAME, RUNTIME_BINDING_NAME].flatMap((n) => labelledProject(binding, n)) }]
        : []),
    ],
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
      if (owned && !namespace.metadata?.deletionTimestamp) {
        // The bindings first: the Database controller needs the operator's for the project's token Secrets, the
        // runtime its own for the app tokens of Databases.
        for (const binding of deps.access ? projectRoleBindings(name, deps.access.project) : []) await ensureBinding(bindings, deps.access!.bindings, binding);
        if (projectQuotaDrifted(deps.quotas.get(`${name}/${PROJECT_QUOTA_NAME}`))) await quotas.apply(projectResourceQuota(name), APPLY);
        if (deps.defaultHostsCertificate) await ensureDefaultHostsCertificate(certificates, project, deps.defaultHostsCertificate.baseDomain);
      }
      // Deleting the other namespace, as the condition advises, sends no event here (it carries no project
      // label, so the cache never held it): look again after a while.
      return owned ? undefined : { requeueAfter: deps.conflictRecheckMs ?? 60_000 };
    },
  });
}

const APPLY = { fieldManager: 'cloudwright-operator', force: true };

/** Applies `desired` unless the cached binding matches it; one naming another role is deleted first (`roleRef` is immutable). */
async function ensureBinding(client: ObjectClient<RoleBinding>, cache: Informer<RoleBinding>, desired: RoleBinding): Promise<void> {
  const { namespace = '', name = '' } = desired.metadata ?? {};
  const current = cache.get(`${namespace}/${name}`);
  const change = bindingChange(current, desired);
  if (change === 'none') return;
  if (change === 'recreate') await client.delete(namespace, name, { preconditions: { uid: current?.metadata?.uid } });
  await client.apply(desired, APPLY);
}

/** The project an object of ours in a project namespace belongs to: its label, for the one name we write. */
function labelledProject(object: KubeObject, name: string): string[] {
  const project = object.metadata?.labels?.[PROJECT_LABEL];
  return object.metadata?.name === name && project === object.metadata?.namespace && project ? [project] : [];
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
