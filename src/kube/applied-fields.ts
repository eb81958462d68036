// A field a GitOps tool applies (server-side apply, re-asserted at every sync) has that tool as its writer: a
// write by anyone else would stand only until the next sync. These helpers find, from an object's
// `managedFields`, which fields a change touches that such a tool owns, so the writer can refuse the change and
// say where the field is really set.
import type { KubeObject } from './types.ts';

/** A field a change would set, and the managers that apply it. */
export interface AppliedField {
  /** Dotted, as `kubectl explain` names fields: `spec.environment.GREETING`. */
  readonly path: string;
  readonly managers: readonly string[];
}

type FieldSet = { readonly [key: string]: FieldSet };

/**
 * `kubectl apply --server-side` is a one-off: nothing applies it again, so its fields are anyone's to change
 * (and its next apply meets a conflict naming the new owner, as server-side apply does for every writer).
 */
const ONE_OFF_MANAGERS = /^kubectl(-|$)/;

/** The roots a user's intent lives under; status has one writer (its controller) and is never judged here. */
const INTENT_ROOTS: readonly (readonly string[])[] = [['spec'], ['metadata', 'labels'], ['metadata', 'annotations']];

/**
 * The fields where `next` differs from `current` that a manager other than `self` keeps applying. An object absent
 * on one side counts as an empty one (removing the last key the API set beside a map or a settings object a tool
 * declares empty changes nothing of the tool's), except at the dotted paths in `emptyIsValue`, objects whose
 * presence means something even when empty (`hsts: {}` turns HSTS on).
 */
export function fieldsAppliedByOthers(current: KubeObject, next: KubeObject, self: string, emptyIsValue: readonly string[] = []): AppliedField[] {
  const owners = appliedOwners(current, self);
  if (owners.length === 0) return [];
  const found: AppliedField[] = [];
  const values = new Set(emptyIsValue);
  for (const root of INTENT_ROOTS) {
    for (const path of changedPaths(valueAt(current, root), valueAt(next, root), [...root], values)) {
      const managers = owners.filter((o) => owns(o.fields, path)).map((o) => o.manager);
      if (managers.length > 0) found.push({ path: path.join('.'), managers });
    }
  }
  return found;
}

/** The managers other than `self` that keep applying any of `object`'s intent (so would create it again if deleted). */
export function managersApplying(object: KubeObject, self: string): string[] {
  return appliedOwners(object, self)
    .filter((o) => INTENT_ROOTS.some((root) => owns(o.fields, root)))
    .map((o) => o.manager);
}

/**
 * The managers other than `self` that keep applying the field at `path` (or something under it). A segment
 * `k:{"user":"alice"}` names an entry of a keyed list (`x-kubernetes-list-type: map`), as managedFields do.
 */
export function managersApplyingField(object: KubeObject, path: readonly string[], self: string): string[] {
  return appliedOwners(object, self)
    .filter((o) => owns(o.fields, path))
    .map((o) => o.manager);
}

/** What a JSON merge patch (RFC 7386) would change of `current`, as the object it would make. */
export function mergePatched<T>(current: T, patch: unknown): T {
  if (!isObject(patch)) return patch as T;
  const out: Record<string, unknown> = isObject(current) ? { ...current } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatched(out[key], value);
  }
  return out as T;
}

/** Flux's kustomize-controller applies under this field manager (its default). */
const FLUX_MANAGER = 'kustomize-controller';
const FLUX_RECONCILE = 'kustomize.toolkit.fluxcd.io/reconcile';
const FLUX_SSA = 'kustomize.toolkit.fluxcd.io/ssa';

/**
 * Whether Flux's own marks say it no longer applies the object, as kustomize-controller reads them (a label or an
 * annotation, the value in any case): `reconcile: disabled` or `ssa: Ignore` on the live object (nor pruned), or
 * `ssa: IfNotPresent` in git (created once, never applied again), which the live object carries as a field Flux
 * applies. Its `managedFields` entry stays, so the mark is what tells.
 */
function fluxLetGo(object: KubeObject, flux: FieldSet): boolean {
  const marks = ['labels', 'annotations'] as const;
  const marked = (key: string, value: string, byFlux: boolean) => marks.some((kind) => object.metadata?.[kind]?.[key]?.toLowerCase() === value && (!byFlux || owns(flux, ['metadata', kind, key])));
  return marked(FLUX_RECONCILE, 'disabled', false) || marked(FLUX_SSA, 'ignore', false) || marked(FLUX_SSA, 'ifnotpresent', true);
}

function appliedOwners(object: KubeObject, self: string): { manager: string; fields: FieldSet }[] {
  const entries = (object.metadata as { managedFields?: { manager?: string; operation?: string; subresource?: string; fieldsV1?: FieldSet }[] } | undefined)?.managedFields ?? [];
  const applied = entries
    .filter((e) => e.operation === 'Apply' && !e.subresource && e.manager !== undefined && e.manager !== self && !ONE_OFF_MANAGERS.test(e.manager))
    .map((e) => ({ manager: e.manager!, fields: e.fieldsV1 ?? {} }));
  const flux = applied.find((o) => o.manager === FLUX_MANAGER);
  return flux && fluxLetGo(object, flux.fields) ? applied.filter((o) => o !== flux) : applied;
}

/** Whether the field set holds `path` (the field itself or anything under it). */
function owns(fields: FieldSet, path: readonly string[]): boolean {
  let node: FieldSet | undefined = fields;
  for (const key of path) {
    node = node[key.startsWith('k:') ? key : `f:${key}`];
    if (node === undefined) return false;
  }
  return true;
}

/**
 * The paths of the leaves that differ; objects are compared key by key, anything else (lists too) as a whole. An
 * object on one side only counts as an empty one on the other, but at a path in `values`.
 */
function changedPaths(before: unknown, after: unknown, at: string[], values: ReadonlySet<string>): string[][] {
  const [b, a] = values.has(at.join('.')) ? [before, after] : [before ?? {}, after ?? {}];
  if (isObject(b) && isObject(a)) {
    const keys = new Set([...Object.keys(b), ...Object.keys(a)]);
    return [...keys].flatMap((key) => changedPaths(b[key], a[key], [...at, key], values));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [at];
}

function valueAt(object: unknown, path: readonly string[]): unknown {
  let value = object;
  for (const key of path) value = isObject(value) ? value[key] : undefined;
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
