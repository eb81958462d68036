/**
 * What a retention bound lets go: of `oldestFirst`, the oldest beyond the newest `keep`, at most `atMost`
 * of them (a bound on the work of one pruning pass; the next pass takes the rest).
 */
export function oldestBeyond<T>(oldestFirst: readonly T[], keep: number, atMost: number): T[] {
  return oldestFirst.slice(0, Math.max(0, Math.min(atMost, oldestFirst.length - keep)));
}
