/**
 * Orders two resourceVersions of objects of one resource: negative when `a` is older, 0 when equal, positive when
 * newer. Kubernetes made them comparable in 1.35 (KEP-5504, client-go's `CompareResourceVersion`): decimal integers
 * without leading zeros, so the longer is the newer and equal lengths compare as strings. Anything else (a missing
 * or malformed version) counts as older than a well-formed one.
 */
export function compareResourceVersions(a: string | undefined, b: string | undefined): number {
  const wellFormed = (v: string | undefined): v is string => v !== undefined && /^[1-9][0-9]*$/.test(v);
  if (!wellFormed(a) || !wellFormed(b)) return Number(wellFormed(a)) - Number(wellFormed(b));
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
