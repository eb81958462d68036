/**
 * Milliseconds until a managed domain's delegation is due to be checked again: 0 when it is due now (never
 * checked, checked `intervalMs` or longer ago, or a check time from the future after a clock jump).
 */
export function nextCheckIn(lastCheckedAt: string | undefined, intervalMs: number, now: Date): number {
  if (!lastCheckedAt) return 0;
  const last = Date.parse(lastCheckedAt);
  if (Number.isNaN(last) || last > now.getTime()) return 0;
  return Math.max(0, last + intervalMs - now.getTime());
}
