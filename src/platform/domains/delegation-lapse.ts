// When a domain that proved its delegation once stops holding its name against another project: the parent zone
// has answered, for longer than the demotion grace, that it delegates the domain elsewhere. The registrar's
// delegation is the proof of a name, and only the name's current owner can set it, so a project that lost it (a
// lapsed registration, a former contractor) must not keep the owner out for good (review-163 F4).
import type { ProjectDomain, ProjectDomainStatus } from '../../apis/v1alpha1/project-domain.ts';
import { formatTime } from '../../conditions/index.ts';
import type { DelegationResult } from '../../dns/delegation.ts';
import { DEMOTION_GRACE_MS } from '../host-admission.ts';

/**
 * Outcomes of a check in which the parent zone itself answered, and not with this domain's zone. Any other
 * (`Timeout`, `NameserverRefused` …) says nothing of who the name belongs to now.
 */
const DEFINITE_NOT_DELEGATED: ReadonlySet<string> = new Set(['NotDelegated', 'NameserversMismatch']);

/**
 * The lapse clock after a delegation check answered `result`, for the controller's status: it starts at the first
 * definite not-delegated answer since the domain was last found delegated, a delegated answer stops it, and any
 * other outcome leaves it as it is. The `Delegated` condition cannot serve: it keeps its transition time across
 * reasons and is left alone by unanswered checks (review-171 F2).
 */
export function lapseClock(prev: ProjectDomainStatus, result: DelegationResult, now: Date): Pick<ProjectDomainStatus, 'notDelegatedSince' | 'lastCheckOutcome'> {
  const since = result.delegated ? undefined : DEFINITE_NOT_DELEGATED.has(result.reason) ? (prev.notDelegatedSince ?? formatTime(now)) : prev.notDelegatedSince;
  return { lastCheckOutcome: result.reason, ...(since !== undefined ? { notDelegatedSince: since } : {}) };
}

/**
 * Whether `d`, delegated once (`status.delegatedAt`), has lapsed: definite not-delegated answers span
 * {@link DEMOTION_GRACE_MS} (`status.notDelegatedSince` that long ago, unanswered checks in between counting for
 * nothing) and the latest check gave one too. Its apps are no longer served, and a project proving a delegation of
 * the name to its own zone takes the name over.
 */
export function delegationLapsed(d: ProjectDomain, now: Date): boolean {
  const status = d.status;
  if (status?.delegatedAt === undefined || status.state === 'managed') return false;
  if (!DEFINITE_NOT_DELEGATED.has(status.lastCheckOutcome ?? '')) return false;
  const since = Date.parse(status.notDelegatedSince ?? '');
  return Number.isFinite(since) && now.getTime() - since >= DEMOTION_GRACE_MS;
}
