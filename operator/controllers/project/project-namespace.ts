import type { Project } from '../../../src/apis/v1alpha1/project.ts';
import { API_VERSION, type Informer, type KubeObject } from '../../../src/kube/index.ts';
import { PROJECT_LABEL } from '../../../src/platform/resources.ts';

/**
 * The namespace a project's resources live in, as the operator's Project controller creates it: named like
 * the project, labelled with it, and owned by the Project through a controller reference, so deleting the
 * project lets the garbage collector delete the namespace and everything in it.
 */
export function projectNamespace(project: Project): KubeObject {
  const name = project.metadata?.name ?? '';
  return {
    metadata: {
      name,
      labels: { [PROJECT_LABEL]: name },
      ownerReferences: [{ apiVersion: API_VERSION, kind: 'Project', name, uid: project.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
  };
}

/**
 * The project a namespace belongs to, by the label the Project controller gives it (only those who may edit
 * namespaces, not a project's tenants, can set it), from a cache of the labelled namespaces.
 */
export function projectOfNamespace(namespaces: Informer<KubeObject>): (namespace: string) => string | undefined {
  return (namespace) => namespaces.get(namespace)?.metadata?.labels?.[PROJECT_LABEL];
}
