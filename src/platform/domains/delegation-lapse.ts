// When a domain that proved its delegation once stops holding its name against another project: the parent zone
// has answered, for longer than the demotion grace, that it delegates the domain elsewhere. The registrar's
// delegation is the proof of a name, and only the name's current owner can set it, so a project that lost it (a
// lapsed registration, a former contractor) must not keep the owner out for good (review-163 F4).
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { findCondition } from '../../conditions/index.ts';
import { DEMOTION_GRACE_MS } from '../host-admission.ts';

/**
 * `Delegated=False` reasons the parent zone itself gave (it answered, and not with this domain's zone). An
 * unanswered check (`Unverifiable`, `Timeout` …) says nothing of who the name belongs to now.
 */
const DEFINITE_NOT_DELEGATED: ReadonlySet<string> = new Set(['NotDelegated', 'NameserversMismatch']);

/**
 * Whether `d`, delegated once (`status.delegatedAt`), has been found not delegated, with a definite answer, for
 * {@link DEMOTION_GRACE_MS} or longer: its apps are no longer served, and a project proving a delegation of the
 * name to its own zone takes the name over. `Delegated` keeps its transition time while it stays False, so the time
 * counts from the first such verdict.
 */
export function delegationLapsed(d: ProjectDomain, now: Date): boolean {
  if (d.status?.delegatedAt === undefined || d.status.state === 'managed') return false;
  const delegated = findCondition(d.status.conditions, 'Delegated');
  if (delegated?.status !== 'False' || !DEFINITE_NOT_DELEGATED.has(delegated.reason)) return false;
  const since = Date.parse(delegated.lastTransitionTime ?? '');
  return Number.isFinite(since) && now.getTime() - since >= DEMOTION_GRACE_MS;
}
