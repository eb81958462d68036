import type { ObjectClient } from '../kube/object-client.ts';
import type { KubeObject } from '../kube/types.ts';

/** The one write finalizer helpers make. */
export type FinalizerClient<T extends KubeObject> = Pick<ObjectClient<T>, 'patch'>;

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/**
 * Writes `finalizers` guarded by the resourceVersion we read: a merge patch that carries
 * `metadata.resourceVersion` is rejected with 409 Conflict if the object changed since, so we never drop a
 * finalizer another controller added meanwhile. The conflict is thrown; the controller retries with backoff
 * from a fresh read.
 */
async function writeFinalizers<T extends KubeObject>(client: FinalizerClient<T>, obj: T, finalizers: string[]): Promise<T> {
  const { namespace = '', name, resourceVersion } = obj.metadata ?? {};
  if (!name || !resourceVersion) throw new Error('finalizers can only be changed on an object read from the apiserver');
  return client.patch(namespace, name, { metadata: { finalizers, resourceVersion } }, 'merge');
}

/**
 * Adds `finalizer` unless present; returns the updated object (or `obj` when nothing was written). An object
 * already being deleted is left alone: the apiserver forbids new finalizers then.
 */
export async function addFinalizer<T extends KubeObject>(client: FinalizerClient<T>, obj: T, finalizer: string): Promise<T> {
  if (hasFinalizer(obj, finalizer) || obj.metadata?.deletionTimestamp) return obj;
  return writeFinalizers(client, obj, [...(obj.metadata?.finalizers ?? []), finalizer]);
}

/** Removes `finalizer` if present; returns the updated object (or `obj` when nothing was written). */
export async function removeFinalizer<T extends KubeObject>(client: FinalizerClient<T>, obj: T, finalizer: string): Promise<T> {
  if (!hasFinalizer(obj, finalizer)) return obj;
  return writeFinalizers(
    client,
    obj,
    (obj.metadata?.finalizers ?? []).filter((f) => f !== finalizer),
  );
}

/**
 * The deletion half of the finalizer pattern. When `obj` is being deleted and carries `finalizer`, runs
 * `cleanup` (which must be idempotent: it reruns after a crash) and removes the finalizer only if cleanup
 * succeeded. Errors from either step propagate, so the controller retries and the object stays until the
 * outside world is clean. Returns `true` when the object is being deleted: the reconciler should stop there.
 *
 * @example
 * if (await runFinalizer(apps, app, FINALIZER, () => dns.deleteZone(zoneId))) return;
 * app = await addFinalizer(apps, app, FINALIZER);
 */
export async function runFinalizer<T extends KubeObject>(client: FinalizerClient<T>, obj: T, finalizer: string, cleanup: (obj: T) => Promise<void>): Promise<boolean> {
  if (!obj.metadata?.deletionTimestamp) return false;
  if (hasFinalizer(obj, finalizer)) {
    await cleanup(obj);
    await removeFinalizer(client, obj, finalizer);
  }
  return true;
}
