import { formatTime } from '../kube/time.ts';

export { formatTime };

/** A status condition, shaped like Kubernetes' `metav1.Condition`. */
export interface Condition {
  /** CamelCase concern, e.g. `Ready`, `DNSRecordsSynced`. */
  type: string;
  status: ConditionStatus;
  /** CamelCase machine-readable cause, e.g. `ZoneCreated`. */
  reason: string;
  /** Human-readable, stable text: no timestamps or request ids, so unchanged state writes nothing. */
  message: string;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number;
  /** RFC 3339, seconds precision; moves only when `status` changes. */
  lastTransitionTime: string;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** What a reconciler sets; the helper fills in the generation and transition time. */
export interface ConditionUpdate {
  type: string;
  status: ConditionStatus;
  reason: string;
  message?: string;
}

/** Our reasons and types are CamelCase identifiers (stricter than the API's `^[A-Za-z]([A-Za-z0-9_,:]*…)?$`). */
const CAMEL_CASE = /^[A-Z][A-Za-z0-9]*$/;
const MAX_REASON = 1024; // metav1.Condition limit
const MAX_MESSAGE = 32768; // metav1.Condition limit
const STATUSES: readonly string[] = ['True', 'False', 'Unknown'];

/**
 * Sets one condition, returning a new array (the input is not modified) and whether anything changed.
 * `lastTransitionTime` is kept unless `status` flips; reason, message or generation changes still count as
 * changes. Throws `TypeError` on a type or reason that is not CamelCase, or an invalid status: those are
 * programming errors, and the apiserver would reject the status write anyway.
 */
export function setCondition(conditions: readonly Condition[] | undefined, update: ConditionUpdate, observedGeneration: number | undefined, now: Date): { conditions: Condition[]; changed: boolean } {
  if (!CAMEL_CASE.test(update.type)) throw new TypeError(`condition type must be CamelCase: ${JSON.stringify(update.type)}`);
  if (!CAMEL_CASE.test(update.reason) || update.reason.length > MAX_REASON) {
    throw new TypeError(`condition reason must be CamelCase: ${JSON.stringify(update.reason)}`);
  }
  if (!STATUSES.includes(update.status)) throw new TypeError(`condition status must be True, False or Unknown: ${update.status}`);

  const list = conditions ?? [];
  const existing = list.find((c) => c.type === update.type);
  const next: Condition = {
    type: update.type,
    status: update.status,
    reason: update.reason,
    message: (update.message ?? '').slice(0, MAX_MESSAGE),
    ...(observedGeneration !== undefined ? { observedGeneration } : {}),
    lastTransitionTime: existing && existing.status === update.status ? existing.lastTransitionTime : formatTime(now),
  };
  if (!existing) return { conditions: [...list, next], changed: true };
  const changed = existing.status !== next.status || existing.reason !== next.reason || existing.message !== next.message || existing.observedGeneration !== next.observedGeneration;
  if (!changed) return { conditions: [...list], changed: false };
  return { conditions: list.map((c) => (c === existing ? next : c)), changed: true };
}

/** Removes the condition of `type`, if any. */
export function removeCondition(conditions: readonly Condition[] | undefined, type: string): { conditions: Condition[]; changed: boolean } {
  const list = conditions ?? [];
  const kept = list.filter((c) => c.type !== type);
  return { conditions: kept, changed: kept.length !== list.length };
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** True when the condition exists with status `True`. */
export function isTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/** True when the condition exists with status `False` (missing or `Unknown` is neither true nor false). */
export function isFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'False';
}
