import { ConflictError } from '../errors.ts';
import { fieldsAppliedByOthers, managersApplying, managersApplyingField, mergePatched, type AppliedField } from '../kube/applied-fields.ts';
import type { ObjectClient } from '../kube/object-client.ts';
import type { KubeObject } from '../kube/types.ts';

/** The field manager of cw-api's writes (the `fieldManager` every write carries: `loadKubeConnection`). */
const API_MANAGER = 'cw-api';

/** Objects of the kinds the API writes whose presence means something even when empty: absent is not `{}` there. */
const EMPTY_IS_VALUE = ['spec.https.hsts'];

/**
 * Refuses a change of fields a GitOps tool keeps applying (Flux, Argo CD with server-side apply): written here
 * they would stand only until its next sync, so the request is told where the field is set instead (409).
 */
export function refuseAppliedElsewhere<T extends KubeObject>(current: T, next: T): void {
  refuse(current, fieldsAppliedByOthers(current, next, API_MANAGER, EMPTY_IS_VALUE));
}

/** Refuses setting the fields at `paths` (which the caller found to change) where a GitOps tool applies them. */
export function refuseSettingApplied(current: KubeObject, paths: readonly (readonly string[])[]): void {
  refuse(
    current,
    paths.flatMap((path) => appliedAt(current, path, path.join('.'))),
  );
}

/**
 * {@link refuseAppliedElsewhere} for entries of a keyed list (`x-kubernetes-list-type: map`, merged by key under
 * server-side apply): changing an entry the tool declares is refused, adding or removing one it does not is not.
 */
export function refuseEntriesAppliedElsewhere(current: KubeObject, list: readonly string[], changedKeys: readonly Record<string, string>[]): void {
  refuse(
    current,
    changedKeys.flatMap((key) => {
      const at = Object.entries(key)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      return appliedAt(current, [...list, `k:${JSON.stringify(key)}`], `${list.join('.')}[${at}]`);
    }),
  );
}

/** The field at `path` as applied by GitOps tools, named `shown` in a refusal; none if no tool applies it. */
function appliedAt(current: KubeObject, path: readonly string[], shown: string): AppliedField[] {
  const managers = managersApplyingField(current, path, API_MANAGER);
  return managers.length > 0 ? [{ path: shown, managers }] : [];
}

function refuse(current: KubeObject, applied: readonly AppliedField[]): void {
  if (applied.length === 0) return;
  const managers = [...new Set(applied.flatMap((a) => a.managers))].join(', ');
  const [fields, it] = applied.length === 1 ? [`${applied[0]!.path} is`, 'it'] : [`${applied.map((a) => a.path).join(', ')} are`, 'them'];
  throw new ConflictError(
    `${current.kind ?? 'Object'} ${current.metadata?.name ?? ''}: ${fields} applied by ${managers} (server-side apply, as Flux and Argo CD sync a repository), whose next sync would set ${it} back. Change ${it} in what ${managers} applies; if it no longer applies ${it}, a kubectl edit takes ${it} over.`,
  );
}

/**
 * Whether a GitOps tool applies the field at `path`: a request that sets a group of fields at once (a deploy's
 * options, a database's limits) keeps such a field's value where it leaves the field out, rather than resetting
 * it to the default only to be refused.
 */
export function appliedElsewhere(object: KubeObject, path: readonly string[]): boolean {
  return managersApplyingField(object, path, API_MANAGER).length > 0;
}

/** {@link refuseAppliedElsewhere} for a JSON merge patch of `current`. */
export function refusePatchAppliedElsewhere(current: KubeObject, patch: unknown): void {
  refuseAppliedElsewhere(current, mergePatched(current, patch));
}

/** Refuses deleting an object a GitOps tool applies: it would create it again at its next sync, empty. */
export function refuseDeleteAppliedElsewhere(current: KubeObject): void {
  const managers = managersApplying(current, API_MANAGER);
  if (managers.length === 0) return;
  const by = managers.join(', ');
  throw new ConflictError(
    `${current.kind ?? 'Object'} ${current.metadata?.name ?? ''} is applied by ${by} (server-side apply, as Flux and Argo CD sync a repository), whose next sync would create it again. Remove it from what ${by} applies and let it prune the object; if ${by} no longer applies it (pruning off, sync suspended), delete it with kubectl.`,
  );
}

/** {@link refuseDeleteAppliedElsewhere} for an object read live (caches keep no managedFields); `uid`: only that incarnation. */
export async function refuseDeleteOfApplied<T extends KubeObject>(client: ObjectClient<T>, namespace: string, name: string, uid?: string): Promise<void> {
  const live = await client.get(namespace, name);
  if (live && (uid === undefined || live.metadata?.uid === uid) && !live.metadata?.deletionTimestamp) refuseDeleteAppliedElsewhere(live);
}
