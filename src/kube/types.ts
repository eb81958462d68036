import { cachePool } from './string-pool.ts';
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

/** Whether `obj` is controlled by the object whose uid is `ownerUid` (so not by an earlier one of the same name). */
export function isControlledBy(obj: KubeObject | undefined, ownerUid: string | undefined): boolean {
  return ownerUid !== undefined && (obj?.metadata?.ownerReferences?.some((ref) => ref.uid === ownerUid && ref.controller === true) ?? false);
}

/** A Secret as JSON: its values base64-encoded under `data`. */
export interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

/** The text under `key` of a Secret's data, decoded; undefined when absent or empty. */
export function secretText(secret: SecretObject | undefined, key: string): string | undefined {
  const value = secret?.data?.[key];
  return value ? Buffer.from(value, 'base64').toString('utf8') : undefined;
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
  return keyOf(obj.metadata?.namespace, obj.metadata?.name ?? '');
}

/**
 * The key `namespace/name` (`name` without a namespace), the pool's copy: a key is kept by many maps of a process
 * (the cache, its indexes, the queue, the engine's), and each building it anew held a copy of its own.
 */
export function keyOf(namespace: string | undefined, name: string): string {
  return cachePool.intern(namespace ? `${namespace}/${name}` : name);
}

/** Splits a key made by {@link objectKey}; `namespace` is `''` for a cluster-scoped key. */
export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
