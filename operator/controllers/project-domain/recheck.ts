import { DELEGATION_CHECK_ANNOTATION, type ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { unansweredRequest } from '../../../src/kube/request-annotation.ts';

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
 * Milliseconds until something waiting on its owner (a delegation, published records) is checked again,
 * given when it started waiting (`since`) and when it was last checked. Owners usually act within minutes,
 * sometimes days later: the interval is a tenth of the time waited, from `minMs` (one minute by default) up
 * to `maxMs` (the managed re-check interval, hourly), as hosted peers re-check often at first and then back off.
 */
export function backoffCheckIn(since: string | undefined, lastCheckedAt: string | undefined, minMs: number, maxMs: number, now: Date): number {
  const start = Date.parse(since ?? '');
  const waited = Number.isNaN(start) ? 0 : Math.max(0, now.getTime() - start);
  return nextCheckIn(lastCheckedAt, Math.min(maxMs, Math.max(minMs, waited / 10)), now);
}

/** {@link backoffCheckIn} of a domain pending delegation: pending since its delegation was lost, or since it was added. */
export function nextPendingCheckIn(domain: ProjectDomain, minMs: number, maxMs: number, now: Date): number {
  const delegated = findCondition(domain.status?.conditions, 'Delegated');
  const since = (delegated?.status === 'False' ? delegated.lastTransitionTime : undefined) ?? domain.metadata?.creationTimestamp;
  return backoffCheckIn(since, domain.status?.lastCheckedAt, minMs, maxMs, now);
}

/** The delegation-check request not answered yet, if any (see {@link DELEGATION_CHECK_ANNOTATION}). */
export function delegationRequest(domain: ProjectDomain): string | undefined {
  return unansweredRequest(domain, DELEGATION_CHECK_ANNOTATION, domain.status?.lastHandledDelegationCheck);
}
