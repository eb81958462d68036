// The operator's own access inside one project's namespace: a RoleBinding of the chart's project ClusterRole
// (Secrets, for the Database controller's minted tokens) to the operator's ServiceAccount; and, when configured,
// the runtime's: a RoleBinding of the runtime's project ClusterRole (get Secrets: the Databases' app tokens its
// apps are linked to) to the runtime's ServiceAccount. Bound per namespace by
// the Project controller because a cluster-wide grant would reach every Secret of the cluster (the platform's
// admin token, signing keys and cloud credentials among them); the chart's admission policy lets the operator
// write this binding only into namespaces labelled as a project's, and only for this role and itself.
import type { KubeObject } from '../../../src/kube/index.ts';
import { PROJECT_LABEL } from '../../../src/platform/resources.ts';

/** The operator's RoleBinding's name in each project namespace. */
export const OPERATOR_BINDING_NAME = 'cloudwright-operator';
/** The runtime's RoleBinding's name in each project namespace. */
export const RUNTIME_BINDING_NAME = 'cloudwright-runtime';

/** One grant: a ClusterRole and the ServiceAccount it is bound to. */
export interface RoleGrant {
  readonly clusterRole: string;
  readonly serviceAccount: { readonly namespace: string; readonly name: string };
}

/** What to bind: the operator's ClusterRole (CW_PROJECT_ROLE) and, optionally, the runtime's (CW_RUNTIME_PROJECT_ROLE). */
export interface ProjectAccess extends RoleGrant {
  readonly runtime?: RoleGrant;
}

export interface RoleBinding extends KubeObject {
  roleRef?: { apiGroup: string; kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

/** The binding of the operator's grant in `project`'s namespace, as the Project controller applies it. */
export function operatorRoleBinding(project: string, access: ProjectAccess): RoleBinding {
  return roleBinding(project, OPERATOR_BINDING_NAME, access);
}

/** Every binding the Project controller keeps in `project`'s namespace: the operator's first (it needs it itself). */
export function projectRoleBindings(project: string, access: ProjectAccess): RoleBinding[] {
  return [operatorRoleBinding(project, access), ...(access.runtime ? [roleBinding(project, RUNTIME_BINDING_NAME, access.runtime)] : [])];
}

function roleBinding(project: string, name: string, access: RoleGrant): RoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace: project, labels: { [PROJECT_LABEL]: project } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: access.clusterRole },
    subjects: [{ kind: 'ServiceAccount', name: access.serviceAccount.name, namespace: access.serviceAccount.namespace }],
  };
}

/** What the binding as stored needs: nothing, an apply (missing, or other subjects), or to be made again (`roleRef` is immutable). */
export function bindingChange(current: RoleBinding | undefined, desired: RoleBinding): 'none' | 'apply' | 'recreate' {
  if (!current) return 'apply';
  const ref = current.roleRef;
  if (ref?.kind !== desired.roleRef?.kind || ref?.name !== desired.roleRef?.name) return 'recreate';
  const subjects = (s: RoleBinding['subjects']) => JSON.stringify((s ?? []).map(({ kind, name, namespace }) => [kind, name, namespace ?? '']));
  return subjects(current.subjects) === subjects(desired.subjects) && current.metadata?.labels?.[PROJECT_LABEL] === desired.metadata?.labels?.[PROJECT_LABEL] ? 'none' : 'apply';
}
