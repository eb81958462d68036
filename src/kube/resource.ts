import { GROUP, VERSION } from '../apis/v1alpha1/group-version.ts';

/** Our API group and version for custom resources, defined once with the schemas. */
export { API_VERSION, GROUP, VERSION } from '../apis/v1alpha1/group-version.ts';

/**
 * Names one resource type on the apiserver. `group` is `''` for the core group (`/api/v1`). Paths are built
 * from these fields rather than discovered, so a watch never waits on a discovery round trip.
 */
export interface ResourceRef {
  group: string;
  version: string;
  /** Lower-case plural used in URLs, e.g. `runtimeapps`. */
  plural: string;
  kind: string;
  namespaced: boolean;
}

/** A {@link ResourceRef} for one of our custom resources (`cloudwright.dev/v1alpha1`, namespaced by default). */
export function customResource(kind: string, plural: string, namespaced = true): ResourceRef {
  return { group: GROUP, version: VERSION, plural, kind, namespaced };
}

/** Core and coordination resources the runtime itself uses. */
export const CONFIG_MAPS: ResourceRef = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };
export const SECRETS: ResourceRef = { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true };
export const CUSTOM_RESOURCE_DEFINITIONS: ResourceRef = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
};
export const NAMESPACES: ResourceRef = { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false };
export const EVENTS: ResourceRef = { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true };
export const LEASES: ResourceRef = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
  namespaced: true,
};

/** What the operator writes into each project's namespace: its object-count quota and its own access there. */
export const RESOURCE_QUOTAS: ResourceRef = { group: '', version: 'v1', plural: 'resourcequotas', kind: 'ResourceQuota', namespaced: true };
export const ROLE_BINDINGS: ResourceRef = { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings', kind: 'RoleBinding', namespaced: true };

/** What a build runs as (operator/controllers/source-build/job-runner.ts): a Job and the pod it makes. */
export const JOBS: ResourceRef = { group: 'batch', version: 'v1', plural: 'jobs', kind: 'Job', namespaced: true };
export const PODS: ResourceRef = { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true };

/** `apiVersion` as written in objects: `v1` for core, `group/version` otherwise. */
export function apiVersionOf(ref: ResourceRef): string {
  return ref.group ? `${ref.group}/${ref.version}` : ref.version;
}

/**
 * The URL path of a collection (no `name`) or of one object, optionally of a subresource such as `status`.
 * An empty `namespace` on a namespaced resource means "all namespaces" (collections only).
 */
export function resourcePath(ref: ResourceRef, namespace?: string, name?: string, subresource?: string): string {
  const root = ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
  if (ref.namespaced && !namespace && name !== undefined) {
    throw new Error(`${ref.kind} is namespaced: a namespace is required to address ${name}`);
  }
  const scope = ref.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  let path = `${root}${scope}/${ref.plural}`;
  // `.` and `..` are path segments a URL resolves away (`…/hostnameclaims/.` addresses the collection, `..` above
  // it): no object is named so, and a name from a request must never turn a read of one object into a list.
  if (name === '.' || name === '..') throw new Error(`${JSON.stringify(name)} is not the name of a ${ref.kind}`);
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource !== undefined) path += `/${subresource}`;
  return path;
}
