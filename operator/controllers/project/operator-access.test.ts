import { describe, expect, it } from 'vitest';
import { bindingChange, operatorRoleBinding, type RoleBinding } from './operator-access.ts';

const access = { clusterRole: 'cloudwright-operator-project', serviceAccount: { namespace: 'cloudwright', name: 'cloudwright-operator' } };
const desired = operatorRoleBinding('p1', access);

describe("the operator's binding in a project namespace", () => {
  it('binds the project ClusterRole to the operator’s ServiceAccount, labelled with the project', () => {
    expect(desired).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'cloudwright-operator', namespace: 'p1', labels: { 'cloudwright.dev/project': 'p1' } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cloudwright-operator-project' },
      subjects: [{ kind: 'ServiceAccount', name: 'cloudwright-operator', namespace: 'cloudwright' }],
    });
  });

  it.each<[string, RoleBinding | undefined, string]>([
    ['as written', structuredClone(desired), 'none'],
    ['missing', undefined, 'apply'],
    ['with a subject added', { ...desired, subjects: [...(desired.subjects ?? []), { kind: 'User', name: 'mallory' }] }, 'apply'],
    ['without its label', { ...desired, metadata: { ...desired.metadata, labels: {} } }, 'apply'],
    ['naming another role (roleRef cannot change)', { ...desired, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' } }, 'recreate'],
  ])('%s: %s', (_, current, change) => expect(bindingChange(current, desired)).toBe(change));
});
