import { apiVersionOf, type ResourceRef } from './resource.ts';
import { internStrings } from './string-pool.ts';
import type { KubeObject } from './types.ts';

/**
 * What an informer caches of each object of `resource`: the object with its `apiVersion` and `kind` set (list
 * items come without them, watch events with them) and without `metadata.managedFields`, which no process
 * here reads and which is often as large as the rest of the object, its short strings interned; then `project`
 * when the process keeps less still. client-go's informers take the same step with `SetTransform`.
 */
export function cacheProjection<T extends KubeObject>(resource: ResourceRef, project?: (obj: KubeObject) => T): (obj: KubeObject) => T {
  const typeMeta = { apiVersion: apiVersionOf(resource), kind: resource.kind };
  return (obj) => {
    const { managedFields: _, ...metadata } = (obj.metadata ?? {}) as KubeObject['metadata'] & { managedFields?: unknown };
    const stripped = { ...obj, ...typeMeta, metadata };
    const kept = project ? project(stripped) : (stripped as T);
    // What is kept has its short strings shared with every other cached object's (the pool's copies): caches hold
    // many alike. After the projection, so the pool takes no string a projection drops; never a Secret's values.
    return resource.kind === 'Secret' ? kept : internStrings(kept);
  };
}
