/**
 * Whether two status values differ as JSON would: key order does not matter, and a property that is
 * `undefined` equals one that is missing. Reconcilers compute the desired status and write it only when this
 * says it changed, so a converged object costs no writes (and no watch events for everyone else).
 */
export function statusChanged(previous: unknown, next: unknown): boolean {
  return !jsonEqual(previous, next);
}

/** Values with `toJSON` (Date) compare by what they serialise to. */
function normalize(value: unknown): unknown {
  const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
  return typeof toJSON === 'function' ? toJSON.call(value) : value;
}

function jsonEqual(x: unknown, y: unknown): boolean {
  const a = normalize(x);
  const b = normalize(y);
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    // NaN never appears in JSON; treat it like JSON.stringify would (null).
    return Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const defined = (o: object) => Object.entries(o).filter(([, v]) => v !== undefined);
  const left = defined(a);
  const right = new Map(defined(b));
  return left.length === right.size && left.every(([key, value]) => right.has(key) && jsonEqual(value, right.get(key)));
}
