// The status of a ProjectDomain from what was just observed: the zone, the delegation and the records. Pure:
// the ProjectDomain controller writes it, and the API reads the provider failures it reports back out of it.
// A status is written only when it changed.
import { ProjectDomainReasons as R, type ProjectDomain, type ProjectDomainState, type ProjectDomainStatus } from '../../apis/v1alpha1/project-domain.ts';
import { findCondition, formatTime, setCondition, type ConditionUpdate } from '../../conditions/index.ts';
import type { DelegationResult } from '../../dns/delegation.ts';
import { DnsProviderError, type DnsProviderErrorCode } from '../../dns/provider.ts';
import type { DomainRefusal } from './domain-admission.ts';
import { lapseClock } from './delegation-lapse.ts';

/** What a reconciliation saw; an absent part was not looked at this time and keeps its previous status. */
export interface DomainObservation {
  /** The domain name itself was refused (a GitOps object): no zone is created. */
  readonly invalid?: { readonly message: string };
  /** The domain is one no project may hold, or one under another project's domain: no zone is created. */
  readonly refused?: DomainRefusal;
  /**
   * Another project holds the domain (it was added there first): no zone is created, unless the holder never proved
   * its delegation (`unproven`): then this domain gets a zone of its own and takes the name over once delegated to it.
   */
  readonly takenBy?: string;
  readonly unproven?: boolean;
  /** The unproven holder did prove its delegation once, but the parent zone has delegated the name elsewhere for a day. */
  readonly lapsedHolder?: boolean;
  /** Refused or taken, but its zone was delegated once: it is kept (with its id and nameservers) until the domain is deleted. */
  readonly zoneKept?: boolean;
  /** Refused or taken, its zone was deleted in this pass: counted, so the next zone gets a caller reference of its own. */
  readonly zoneDeleted?: boolean;
  /** The project already has this many domains, older than this one: no zone is created. */
  readonly overLimit?: number;
  readonly zone?: { readonly zoneId: string; readonly nameservers: readonly string[] } | ProviderFailure;
  readonly delegation?: DelegationResult;
  readonly records?: RecordsOutcome | ProviderFailure;
  /** Soft-deleted and cleaned up: zone and records are gone. */
  readonly deleted?: boolean;
  /** Being deleted, but the provider refused to delete the zone: the deletion waits, and says why. */
  readonly deletionFailed?: ProviderFailure;
}

export interface ProviderFailure {
  readonly failure: DnsProviderErrorCode;
  readonly message: string;
}

/** How the domain's DnsRecords fared in the zone. */
export interface RecordsOutcome {
  readonly applied: number;
  /** Waiting for the delegation (creates and updates are held while pending). */
  readonly held: number;
  /** Refused (invalid or conflicting), with one line each. */
  readonly rejected: readonly string[];
}

const isFailure = (x: object | undefined): x is ProviderFailure => x !== undefined && 'failure' in x;

/** The condition reason of each provider error code. */
const PROVIDER_REASONS = {
  unavailable: R.ProviderUnavailable,
  throttled: R.ProviderThrottled,
  zone_not_found: R.ProviderZoneNotFound,
  not_owned: R.ProviderNotOwned,
  rejected: R.ProviderRejected,
  limit_exceeded: R.ProviderLimitExceeded,
  access_denied: R.ProviderAccessDenied,
  invalid: R.ProviderInvalid,
} as const satisfies Record<DnsProviderErrorCode, string>;

/** `unavailable` → `ProviderUnavailable`: the condition reason of a provider error code. */
export function providerReason(code: DnsProviderErrorCode): string {
  return PROVIDER_REASONS[code];
}

/**
 * The provider failure the controller last reported on the domain's zone (ZoneReady False with one of the
 * {@link PROVIDER_REASONS}), as the error the API answers for it: 503 with Retry-After for one retrying
 * fixes, 502 otherwise. `undefined` when the zone has no such failure.
 */
export function providerFailureOf(domain: ProjectDomain): DnsProviderError | undefined {
  const zone = findCondition(domain.status?.conditions, 'ZoneReady');
  if (zone?.status !== 'False') return undefined;
  const code = (Object.keys(PROVIDER_REASONS) as DnsProviderErrorCode[]).find((c) => PROVIDER_REASONS[c] === zone.reason);
  return code ? new DnsProviderError(code, { op: 'status' }) : undefined;
}

/** How long a managed domain's delegation checks may go unanswered before it counts as not delegated. */
export const UNVERIFIABLE_AFTER_MS = 24 * 3_600_000;

/** Delegation outcomes that say nothing about the delegation itself: the previous state stands. */
const INCONCLUSIVE: ReadonlySet<string> = new Set(['Timeout', 'Unreachable', 'ServerFailure', 'ParentNotFound']);

/** The next status of `domain` given `seen`; compare with `statusChanged` before writing. */
export function domainStatus(domain: ProjectDomain, seen: DomainObservation, now: Date): ProjectDomainStatus {
  const prev = domain.status ?? {};
  const name = domain.spec.domain;
  const generation = domain.metadata?.generation;
  const status: ProjectDomainStatus = { ...prev, observedGeneration: generation };
  let conditions = prev.conditions ?? [];
  const set = (update: ConditionUpdate) => (conditions = setCondition(conditions, update, generation, now).conditions);

  if (seen.deleted) {
    const { hostedZoneId: _z, nameservers: _n, delegatedNameservers: _d, ...rest } = status;
    set({ type: 'ZoneReady', status: 'False', reason: R.Deleted, message: `The hosted zone of ${name} was deleted with the domain.` });
    set({ type: 'RecordsApplied', status: 'False', reason: R.Deleted, message: 'The records were deleted with the domain.' });
    set({ type: 'Ready', status: 'False', reason: R.Deleted, message: `${name} was deleted; this object is kept as history. Add the domain again to host it anew.` });
    return { ...rest, state: 'deleted', records: 0, deletedAt: prev.deletedAt ?? formatTime(now), conditions };
  }
  if (seen.deletionFailed) {
    const { failure, message } = seen.deletionFailed;
    const why = `The hosted zone of ${name} could not be deleted: ${message} The deletion waits until it can be; the platform keeps retrying.`;
    set({ type: 'ZoneReady', status: 'False', reason: providerReason(failure), message: why });
    set({ type: 'Ready', status: 'False', reason: R.ZoneDeletionFailed, message: why });
    return { ...status, conditions };
  }
  if (seen.invalid || seen.refused || (seen.takenBy && !seen.unproven) || seen.overLimit !== undefined) {
    // Delegated once and another project's now: it took the name over by proving a delegation to its own zone.
    const takenOver = seen.takenBy !== undefined && prev.delegatedAt !== undefined;
    const reason = seen.invalid ? R.InvalidDomain : seen.refused ? seen.refused.reason : takenOver ? R.DomainTakenOver : seen.takenBy ? R.DomainTaken : R.TooManyDomains;
    const message =
      seen.invalid?.message ??
      seen.refused?.message ??
      (takenOver
        ? `${name} was taken over by another project, to whose zone the parent zone delegates it, after the delegation of ${name} to this domain's zone had lapsed; its apps are not served under it here. Delete it here; a delegation to this zone again takes the name back only once the other project's has lapsed for a day.`
        : seen.takenBy
          ? `${name} is already a domain of another project; a domain can belong to one project only. It must be deleted there first.`
          : `The project has ${seen.overLimit} domains, the most it may have: no hosted zone is created for ${name}. Delete one; this one then gets its zone.`);
    const kept = seen.zoneKept ? ` Its hosted zone, delegated once, is kept until ${name} is deleted.` : '';
    set({ type: 'ZoneReady', status: 'False', reason, message: message + kept });
    set({ type: 'Ready', status: 'False', reason, message: message + kept });
    if (seen.zoneKept) return { ...status, state: 'pending_delegation', conditions };
    // A zone it had (the name taken over, or refused by a rule since) was deleted with it.
    const { hostedZoneId: _zone, nameservers: _nameservers, ...rest } = status;
    const zonesDeleted = (prev.zonesDeleted ?? 0) + (seen.zoneDeleted ? 1 : 0);
    return { ...rest, state: 'pending_delegation', ...(zonesDeleted > 0 ? { zonesDeleted } : {}), conditions };
  }

  if (isFailure(seen.zone)) {
    set({ type: 'ZoneReady', status: 'False', reason: providerReason(seen.zone.failure), message: `The hosted zone could not be created: ${seen.zone.message} The platform keeps retrying.` });
  } else if (seen.zone) {
    status.hostedZoneId = seen.zone.zoneId;
    status.nameservers = [...seen.zone.nameservers];
    set({ type: 'ZoneReady', status: 'True', reason: R.ZoneCreated, message: `Hosted zone ${seen.zone.zoneId} serves ${name}; its nameservers are ${seen.zone.nameservers.join(', ')}.` });
  }

  let state: ProjectDomainState = prev.state === 'managed' ? 'managed' : 'pending_delegation';
  const d = seen.delegation;
  if (d) {
    status.lastCheckedAt = formatTime(now);
    delete status.notDelegatedSince;
    Object.assign(status, lapseClock(prev, d, now));
    if (INCONCLUSIVE.has(d.reason)) {
      // A domain found not delegated stays so (its demotion grace runs from then, domainServes): an unanswered
      // check, which the parent's servers can cause at will, must not make it served again, nor start a new grace.
      // Nor keep one managed for good: unanswered for a day, the delegation counts as gone.
      const before = conditions.find((c) => c.type === 'Delegated');
      const unknownSince = before?.status === 'Unknown' ? Date.parse(before.lastTransitionTime ?? '') : now.getTime();
      if (before?.status === 'False') {
        // stays as it is
      } else if (state === 'managed' && now.getTime() - unknownSince >= UNVERIFIABLE_AFTER_MS) {
        state = 'pending_delegation';
        set({
          type: 'Delegated',
          status: 'False',
          reason: R.Unverifiable,
          message: `The delegation of ${name} could not be checked for ${UNVERIFIABLE_AFTER_MS / 3_600_000} hours (${d.message}); it counts as not delegated until a check finds it delegated.`,
        });
      } else {
        set({ type: 'Delegated', status: 'Unknown', reason: d.reason, message: d.message });
      }
    } else {
      state = d.delegated ? 'managed' : 'pending_delegation';
      status.delegatedNameservers = [...d.found];
      set({
        type: 'Delegated',
        status: d.delegated ? 'True' : 'False',
        reason: d.reason,
        message: d.delegated ? d.message : `${d.message} Then run the delegation check again.`,
      });
    }
  } else if (!conditions.some((c) => c.type === 'Delegated') && status.nameservers) {
    set({
      type: 'Delegated',
      status: 'False',
      reason: R.NotChecked,
      message: `Set the nameservers of ${name} at your registrar to ${status.nameservers.join(', ')}, then run the delegation check.`,
    });
  }
  status.state = state;
  if (state === 'managed') status.delegatedAt ??= formatTime(now);

  const r = seen.records;
  if (isFailure(r)) {
    set({ type: 'RecordsApplied', status: 'False', reason: providerReason(r.failure), message: `The records could not be written: ${r.message} The platform keeps retrying.` });
  } else if (r) {
    status.records = r.applied;
    if (r.rejected.length > 0) {
      const shown = r.rejected.slice(0, 5).join('; ');
      set({
        type: 'RecordsApplied',
        status: 'False',
        reason: R.RecordConflicts,
        message: `${r.rejected.length} record(s) cannot be written: ${shown}${r.rejected.length > 5 ? '; …' : ''}. Fix or delete them.`,
      });
    } else if (r.held > 0) {
      set({ type: 'RecordsApplied', status: 'False', reason: R.DelegationPending, message: `${r.held} record(s) wait for the delegation: they are written once ${name} is managed.` });
    } else {
      set({ type: 'RecordsApplied', status: 'True', reason: R.Applied, message: `${r.applied} record(s) are in the zone as specified.` });
    }
  }

  const find = (type: string) => conditions.find((c) => c.type === type);
  const zone = find('ZoneReady');
  const delegated = find('Delegated');
  const records = find('RecordsApplied');
  if (zone?.status !== 'True') {
    set({ type: 'Ready', status: 'False', reason: zone?.reason ?? R.ZoneNotReady, message: zone?.message ?? `The hosted zone of ${name} is being created.` });
  } else if (seen.takenBy && seen.unproven) {
    const holder = seen.lapsedHolder ? 'whose delegation of it has lapsed for a day' : 'that never proved its delegation';
    const message = `${name} is held by another project ${holder}; delegate ${name} to ${status.nameservers?.join(', ') ?? 'this zone'} and run the delegation check to take it over.`;
    set({ type: 'Ready', status: 'False', reason: R.DomainTaken, message });
  } else if (state !== 'managed') {
    set({ type: 'Ready', status: 'False', reason: R.PendingDelegation, message: delegated?.message ?? `${name} is not delegated to its zone yet.` });
  } else if (records && records.status !== 'True') {
    set({ type: 'Ready', status: 'False', reason: records.reason, message: records.message });
  } else {
    set({ type: 'Ready', status: 'True', reason: R.Managed, message: `${name} is delegated to its hosted zone; records can be written.` });
  }
  return { ...status, conditions };
}
