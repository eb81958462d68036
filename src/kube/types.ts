/**
 * The slice of Kubernetes object metadata the platform reads. Objects travel as plain JSON (timestamps are
 * RFC 3339 strings), never as client-node model classes, so the cache, the watch stream and our writes agree.
 */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  generateName?: string;
}

/** Any Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** A list response as JSON. */
export interface KubeList<T extends KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items: T[];
}

/**
 * The cache key of an object, as client-go's `MetaNamespaceKeyFunc`: `namespace/name`, or `name` for a
 * cluster-scoped object.
 */
export function objectKey(obj: KubeObject): string {
  const namespace = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return namespace ? `${namespace}/${name}` : name;
}

/** Splits a key made by {@link objectKey}; `namespace` is `''` for a cluster-scoped key. */
export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
