import { DELEGATION_CHECK_ANNOTATION, type ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import { findCondition } from '../../../src/conditions/index.ts';

/** The longest request value echoed in status (the status field's bound); longer annotations are cut to it. */
const MAX_REQUEST_LENGTH = 64;

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

/**
 * Milliseconds until a domain pending delegation is checked again. Owners usually delegate within minutes of
 * adding a domain, sometimes days later: the interval is a tenth of the time the domain has been pending,
 * from `minMs` (one minute by default) up to `maxMs` (the managed re-check interval, hourly), as hosted
 * peers re-check often at first and then back off.
 */
export function nextPendingCheckIn(domain: ProjectDomain, minMs: number, maxMs: number, now: Date): number {
  const delegated = findCondition(domain.status?.conditions, 'Delegated');
  const since = Date.parse((delegated?.status === 'False' ? delegated.lastTransitionTime : undefined) ?? domain.metadata?.creationTimestamp ?? '');
  const pendingFor = Number.isNaN(since) ? 0 : Math.max(0, now.getTime() - since);
  const interval = Math.min(maxMs, Math.max(minMs, pendingFor / 10));
  return nextCheckIn(domain.status?.lastCheckedAt, interval, now);
}

/** The delegation-check request not answered yet, if any (see {@link DELEGATION_CHECK_ANNOTATION}). */
export function delegationRequest(domain: ProjectDomain): string | undefined {
  const asked = domain.metadata?.annotations?.[DELEGATION_CHECK_ANNOTATION]?.slice(0, MAX_REQUEST_LENGTH);
  return asked !== undefined && asked !== domain.status?.lastHandledDelegationCheck ? asked : undefined;
}
