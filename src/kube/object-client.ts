import { PatchStrategy } from '@kubernetes/client-node';
import { isNotFound } from './api-error.ts';
import type { KubeConnection } from './kube-config.ts';
import { apiVersionOf, resourcePath, type ResourceRef } from './resource.ts';
import type { KubeList, KubeObject } from './types.ts';

/** How a patch body is interpreted (RFC 7386 merge patch or RFC 6902 JSON patch). */
export type PatchType = 'merge' | 'json';

export interface ApplyOptions {
  /** The server-side-apply field manager, e.g. `cloudwright-operator`. */
  fieldManager: string;
  /** Take ownership of fields another manager set (controllers normally do). */
  force?: boolean;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

/**
 * Reads and writes one resource type. Writes that carry `metadata.resourceVersion` (replace, or a patch that
 * sets it) are conditional: a stale version fails with 409 Conflict, which is thrown, never retried here.
 * `namespace` is ignored for cluster-scoped resources.
 */
export interface ObjectClient<T extends KubeObject> {
  readonly resource: ResourceRef;
  /** The object, or `undefined` when it does not exist. */
  get(namespace: string, name: string): Promise<T | undefined>;
  /** Lists one namespace, or all namespaces when `namespace` is `''`. */
  list(namespace: string, options?: ListOptions): Promise<KubeList<T>>;
  create(object: T): Promise<T>;
  /** PUT; `object.metadata.resourceVersion` makes it conditional. */
  replace(object: T): Promise<T>;
  /** PUT to the status subresource (only `status` is taken from `object`). */
  replaceStatus(object: T): Promise<T>;
  patch(namespace: string, name: string, patch: unknown, type?: PatchType): Promise<T>;
  patchStatus(namespace: string, name: string, patch: unknown, type?: PatchType): Promise<T>;
  /** Server-side apply of a partial object (its apiVersion and kind are filled in). */
  apply(object: T, options: ApplyOptions): Promise<T>;
  applyStatus(object: T, options: ApplyOptions): Promise<T>;
  /**
   * Deletes; an object that is already gone counts as deleted (returns `false`). With `preconditions.uid`,
   * only that incarnation: one deleted and created again under the name is a 409 conflict; with
   * `preconditions.resourceVersion`, only that version: one written since is a 409 conflict.
   */
  delete(
    namespace: string,
    name: string,
    options?: {
      propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
      preconditions?: { uid?: string | undefined; resourceVersion?: string | undefined };
    },
  ): Promise<boolean>;
}

const contentTypes: Record<PatchType, string> = { merge: PatchStrategy.MergePatch, json: PatchStrategy.JsonPatch };

/** An {@link ObjectClient} for any resource type. */
export function objectClient<T extends KubeObject>(conn: KubeConnection, resource: ResourceRef): ObjectClient<T> {
  const { api } = conn;
  const ns = (obj: KubeObject): string | undefined => (resource.namespaced ? obj.metadata?.namespace : undefined);
  const nameOf = (obj: KubeObject): string => {
    const name = obj.metadata?.name;
    if (!name) throw new Error(`${resource.kind} has no metadata.name`);
    return name;
  };
  const typed = (obj: T): T => ({ ...obj, apiVersion: apiVersionOf(resource), kind: resource.kind });
  const applyQuery = (o: ApplyOptions) => ({ fieldManager: o.fieldManager, force: o.force ?? false });

  return {
    resource,
    async get(namespace, name) {
      try {
        return await api.request<T>('GET', resourcePath(resource, namespace, name));
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    list: (namespace, options = {}) => api.request<KubeList<T>>('GET', resourcePath(resource, namespace), { query: { ...options } }),
    create: (object) => api.request<T>('POST', resourcePath(resource, ns(object)), { body: typed(object) }),
    replace: (object) => api.request<T>('PUT', resourcePath(resource, ns(object), nameOf(object)), { body: typed(object) }),
    replaceStatus: (object) => api.request<T>('PUT', resourcePath(resource, ns(object), nameOf(object), 'status'), { body: typed(object) }),
    patch: (namespace, name, patch, type = 'merge') => api.request<T>('PATCH', resourcePath(resource, namespace, name), { body: patch, contentType: contentTypes[type] }),
    patchStatus: (namespace, name, patch, type = 'merge') =>
      api.request<T>('PATCH', resourcePath(resource, namespace, name, 'status'), {
        body: patch,
        contentType: contentTypes[type],
      }),
    apply: (object, options) =>
      api.request<T>('PATCH', resourcePath(resource, ns(object), nameOf(object)), {
        body: typed(object),
        // JSON is YAML, so the apply content type accepts our JSON body as is.
        contentType: PatchStrategy.ServerSideApply,
        query: applyQuery(options),
      }),
    applyStatus: (object, options) =>
      api.request<T>('PATCH', resourcePath(resource, ns(object), nameOf(object), 'status'), {
        body: typed(object),
        contentType: PatchStrategy.ServerSideApply,
        query: applyQuery(options),
      }),
    async delete(namespace, name, options = {}) {
      try {
        const body = {
          ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
          ...(options.preconditions?.uid || options.preconditions?.resourceVersion
            ? {
                preconditions: {
                  ...(options.preconditions.uid ? { uid: options.preconditions.uid } : {}),
                  ...(options.preconditions.resourceVersion ? { resourceVersion: options.preconditions.resourceVersion } : {}),
                },
              }
            : {}),
        };
        await api.request('DELETE', resourcePath(resource, namespace, name), Object.keys(body).length > 0 ? { body } : {});
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    },
  };
}
