// One pass over a ProjectDomain: its claim on the name, its hosted zone, optionally its delegation, its
// records, its status. Only the ProjectDomain controller runs it: for every change of the domain or its
// records, for a delegation check asked through the annotation, and on the re-check schedule. Every step is
// idempotent (zone creation by caller reference, record changes by UPSERT), so a pass may be repeated.
import { RECORD_FINALIZER, type DnsRecord, type DnsRecordStatus } from '../../../src/apis/v1alpha1/dns-record.ts';
import { addFinalizer, hasFinalizer, removeFinalizer } from '../../../src/controller-runtime/finalizers.ts';
import { CREATED_BY_API_ANNOTATION, ProjectDomainReasons, ZONE_FINALIZER, type ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import { findCondition, setCondition, statusChanged, type ConditionUpdate } from '../../../src/conditions/index.ts';
import { checkDelegation, type DelegationResult } from '../../../src/dns/delegation.ts';
import { checkDomainName } from '../../../src/dns/domain-name.ts';
import { absoluteName } from '../../../src/dns/names.ts';
import { DnsProviderError } from '../../../src/dns/provider.ts';
import { isConflict, isNotFound, retryOnConflict, type ObjectClient } from '../../../src/kube/index.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { deleteDomainCertificate } from './certificate.ts';
import type { DnsSettings } from '../../dns-settings.ts';
import { byAge, isActive, type DomainStore } from '../../../src/platform/domains/domain-store.ts';
import { MAX_DELETED_DOMAINS_KEPT, MAX_DOMAINS_PER_PROJECT } from '../../../src/platform/domains/project-domains.ts';
import { MAX_RECORDS_PER_DOMAIN } from '../../../src/platform/domains/dns-records.ts';
import { inParallel } from '../../../src/collections/in-parallel.ts';
import { oldestBeyond } from '../../../src/collections/retention.ts';
import { domainStatus, type DomainObservation, type ProviderFailure } from '../../../src/platform/domains/domain-status.ts';
import { ancestorDomains, domainRefusal, type DomainRefusal, type Overlap, type OverlapBelow } from '../../../src/platform/domains/domain-admission.ts';
import type { ClaimHolder } from '../../../src/apis/v1alpha1/domain-claim.ts';
import { delegationLapsed } from '../../../src/platform/domains/delegation-lapse.ts';
import { syncDomainRecords } from './record-sync.ts';
import type { NameClaims } from '../name-claims.ts';
import { withStalled } from '../../../src/conditions/stalled.ts';

/** Old history deleted at most per pass: a bound on the work of one reconcile. */
const MAX_HISTORY_PRUNED_PER_CALL = 5;

export interface ReconcileOptions {
  /** Ask the parent zone whether the domain is delegated (a request, or the re-check schedule). */
  readonly checkDelegation?: boolean;
  /** The delegation-check request this pass answers, echoed in `status.lastHandledDelegationCheck`. */
  readonly answersRequest?: string;
}

export interface DomainPass {
  readonly domain: ProjectDomain;
  /** The delegation verdict, when it was checked. */
  readonly delegation?: DelegationResult;
  /** The provider failed on the way (already in the status conditions). */
  readonly failure?: DnsProviderError;
  /** The holder this pass took the name over from: nothing it watches changed, so it is told. */
  readonly tookOverFrom?: ClaimHolder;
}

function failureOf(err: unknown): { failure: ProviderFailure; error: DnsProviderError } {
  if (!(err instanceof DnsProviderError)) throw err;
  return { failure: { failure: err.code, message: err.message }, error: err };
}

/** Runs passes over ProjectDomains; see the file comment. */
export class DomainReconciler {
  readonly #store: DomainStore;
  readonly #claims: NameClaims;
  readonly #settings: DnsSettings;
  readonly #certificates: ObjectClient<TlsCertificate>;
  readonly #now: () => Date;

  constructor(store: DomainStore, claims: NameClaims, settings: DnsSettings, certificates: ObjectClient<TlsCertificate>, now: () => Date = () => new Date()) {
    this.#store = store;
    this.#claims = claims;
    this.#settings = settings;
    this.#certificates = certificates;
    this.#now = now;
  }

  /** Converges `domain` (read from a cache or the apiserver) and writes its status when it changed. */
  async reconcile(domain: ProjectDomain, options: ReconcileOptions = {}): Promise<DomainPass> {
    if (domain.spec.deleted) return { domain: await this.retire(domain) };
    const seen: { -readonly [K in keyof DomainObservation]: DomainObservation[K] } = {};
    let failure: DnsProviderError | undefined;
    let delegation: DelegationResult | undefined;
    const name = checkDomainName(domain.spec.domain);
    const { namespace = '', name: objectName = '', uid = '' } = domain.metadata ?? {};
    const valid = name.ok && name.domain === domain.spec.domain;
    const refused = valid ? await this.#refusal(domain) : undefined;
    // Past the project's limit, a domain claims no name either: it must not block other projects for nothing.
    const over = valid && !refused ? this.#overLimit(domain) : undefined;
    if (refused || over !== undefined) await this.#claims.release(domain.spec.domain, uid);
    let claim = valid && !refused && over === undefined ? await this.#claims.claim(domain.spec.domain, { namespace, name: objectName, uid }) : undefined;
    const unproven = claim && !claim.held ? await this.#challengeable(claim.holder) : undefined;
    let tookOverFrom: ClaimHolder | undefined;
    if (!valid) {
      seen.invalid = { message: name.ok ? `${domain.spec.domain} is not in normal form; use ${name.domain}.` : name.message };
    } else if (refused) {
      seen.refused = refused;
    } else if (over !== undefined) {
      seen.overLimit = over;
    } else if (claim && !claim.held && !unproven) {
      seen.takenBy = claim.holder.namespace;
    } else {
      const zone = await this.#zone(domain);
      if ('failure' in zone) {
        seen.zone = zone.failure;
        failure = zone.error;
      } else {
        seen.zone = zone;
        if (options.checkDelegation) {
          delegation = await checkDelegation(domain.spec.domain, zone.nameservers, this.#settings.delegation);
          seen.delegation = delegation;
        }
        if (claim && !claim.held && unproven) {
          // The holder does not prove its delegation (never did, or lapsed): delegated to this zone, the name is ours.
          const from = claim.holder;
          if (delegation?.delegated) claim = await this.#claims.takeOver(domain.spec.domain, unproven.uid, { namespace, name: objectName, uid });
          if (claim.held) tookOverFrom = from;
          else {
            seen.takenBy = claim.holder.namespace;
            seen.unproven = true;
            if (unproven.lapsed) seen.lapsedHolder = true;
          }
        }
      }
      if (seen.takenBy === undefined && !('failure' in zone)) {
        const managed = domainStatus(domain, seen, this.#now()).state === 'managed';
        // From the apiserver, in one read: the records the plan writes and the deleted ones it takes out are
        // the same moment's, so a record released below has left the zone (one deleted later waits for a pass).
        const { live, leaving } = await this.#recordsNow(domain);
        // Before a record can reach the zone: its deletion then waits until it has left the zone again.
        const records = await inParallel(live, (r) => addFinalizer(this.#store.recordClient, r, RECORD_FINALIZER));
        try {
          const result = await syncDomainRecords({
            provider: this.#settings.provider,
            ownerId: this.#settings.ownerId,
            zoneId: zone.zoneId,
            domain: domain.spec.domain,
            records,
            allowWrites: managed,
            maxRecords: MAX_RECORDS_PER_DOMAIN,
          });
          seen.records = result.outcome;
          await this.#writeRecordStatuses(domain, records, result.conditions);
          await this.#release(leaving);
        } catch (err) {
          const f = failureOf(err);
          seen.records = f.failure;
          failure = f.error;
          await this.#writeRecordStatuses(domain, records, new Map(), f.failure.message);
        }
      }
    }
    // A zone this domain no longer may have (its name refused by a rule, or taken over by a project that proved
    // its delegation) goes, with its records: the name is not this project's to answer for. Unless it was ever
    // delegated: the internet may be asking it, and only deleting the domain deletes such a zone.
    if ((seen.refused || (seen.takenBy && !seen.unproven)) && domain.status?.hostedZoneId) {
      if (domain.status.delegatedAt) {
        seen.zoneKept = true;
      } else {
        await this.#deleteZone(domain, domain.status.hostedZoneId);
        await this.releaseDeletedRecords(domain);
        seen.zoneDeleted = true;
      }
    }
    // No zone to hold them (a name refused or taken, a zone not created): deleted records are out of DNS already.
    if (!('zone' in seen) || (seen.zone !== undefined && 'failure' in seen.zone)) await this.releaseDeletedRecords(domain);
    const written = await this.#store.updateDomainStatus(domain, (live) => {
      const status = stalledDomain(live, domainStatus(live, seen, this.#now()), this.#now());
      if (options.answersRequest !== undefined) status.lastHandledDelegationCheck = options.answersRequest;
      return statusChanged(live.status, status) ? status : undefined;
    });
    return { domain: written, ...(delegation ? { delegation } : {}), ...(failure ? { failure } : {}), ...(tookOverFrom ? { tookOverFrom } : {}) };
  }

  /**
   * Soft delete (or a `kubectl delete`): the domain's DnsRecords, its hosted zone and its certificate go; the status says so.
   * Idempotent; provider errors propagate (the zone must not be forgotten while it still exists).
   */
  async retire(domain: ProjectDomain): Promise<ProjectDomain> {
    const { namespace = '', name = '' } = domain.metadata ?? {};
    const records = (await this.#store.recordClient.list(namespace)).items.filter((r) => r.spec.domainRef.name === name);
    await inParallel(records, (r) => this.#store.recordClient.delete(namespace, r.metadata?.name ?? ''));
    const zoneId = domain.status?.hostedZoneId ?? (await this.#unrecordedZone(domain));
    if (zoneId) await this.#deleteZone(domain, zoneId);
    await this.releaseDeletedRecords(domain);
    await this.#claims.release(domain.spec.domain, domain.metadata?.uid ?? '');
    // Revoked, its key deleted: a soft-deleted domain is kept, so nothing else would delete its certificate.
    await deleteDomainCertificate(this.#certificates, domain);
    if (domain.metadata?.deletionTimestamp) return domain;
    const retired = await this.#store.updateDomainStatus(domain, (live) => {
      const status = stalledDomain(live, domainStatus(live, { deleted: true }, this.#now()), this.#now());
      return statusChanged(live.status, status) ? status : undefined;
    });
    if (!retired.metadata?.finalizers?.includes(ZONE_FINALIZER)) return retired;
    // Edited from the live list, conditional on its version, so another finalizer added meanwhile stays.
    return retryOnConflict(async () => {
      const live = (await this.#store.domainClient.get(namespace, name)) ?? retired;
      const finalizers = live.metadata?.finalizers ?? [];
      if (!finalizers.includes(ZONE_FINALIZER)) return live;
      return this.#store.domainClient.patch(namespace, name, { metadata: { resourceVersion: live.metadata?.resourceVersion, finalizers: finalizers.filter((f) => f !== ZONE_FINALIZER) } });
    });
  }

  /**
   * Why the project may not hold this domain at all (the rule the API applies too), from the DomainClaims of its
   * ancestors and of the other projects' domains inside it.
   */
  async #refusal(domain: ProjectDomain): Promise<DomainRefusal | undefined> {
    const project = domain.metadata?.namespace ?? '';
    const holders = new Map<string, Overlap>();
    for (const ancestor of ancestorDomains(domain.spec.domain)) {
      const holder = await this.#claims.holderOf(ancestor);
      if (holder && holder.namespace !== project) holders.set(ancestor, await this.#overlap(holder, domain));
    }
    return domainRefusal(domain.spec.domain, project, {
      baseDomain: this.#settings.baseDomain,
      holderOf: (name) => holders.get(name),
      below: await this.#firmBelow(domain),
      firm: this.#firm(domain),
    });
  }

  /** An ancestor's holder as the rule weighs it; one that cannot be read still holds the name, firmly. */
  async #overlap(holder: ClaimHolder, domain: ProjectDomain): Promise<Overlap> {
    const live = await this.#store.domainClient.get(holder.namespace, holder.name);
    if (!live || live.metadata?.uid !== holder.uid) return { project: holder.namespace, firm: true, older: true };
    return { project: holder.namespace, firm: this.#firmAgainstOthers(live), older: byAge(live, domain) < 0 };
  }

  /**
   * The first domain of another project inside `domain` that holds its claim firmly: a parent added later must
   * not take it in (its zone and records would go). From the cache, each confirmed by its claim.
   */
  async #firmBelow(domain: ProjectDomain): Promise<OverlapBelow[]> {
    const project = domain.metadata?.namespace ?? '';
    for (const d of this.#store.holdersBelow(domain.spec.domain)) {
      if (d.metadata?.namespace === project || !this.#firmAgainstOthers(d)) continue;
      if ((await this.#claims.holderOf(d.spec.domain))?.uid !== d.metadata?.uid) continue;
      return [{ domain: d.spec.domain, project: d.metadata?.namespace ?? '', firm: true, older: byAge(d, domain) < 0 }];
    }
    return [];
  }

  /** Holds its name firmly: it has its zone and proved its delegation. Until then it proves nothing against another project. */
  #firm(domain: ProjectDomain): boolean {
    return domain.status?.hostedZoneId !== undefined && domain.status.delegatedAt !== undefined;
  }

  /**
   * Another project's domain above or below the one decided keeps it out only while its delegation holds: a lapsed
   * holder of a parent and a child name locked the name's new owner out of both for good (review-171 F3).
   */
  #firmAgainstOthers(other: ProjectDomain): boolean {
    return this.#firm(other) && !delegationLapsed(other, this.#now());
  }

  /**
   * The holder of a name when it does not prove its delegation now: it never did, or it did once and the parent zone
   * has delegated the name elsewhere for a day (`delegationLapsed`). A project that proves its own delegation then
   * takes the name over. A claim proves nothing until then, however old (found in review: a squatter renewed a
   * pending claim for good by deleting its domain and adding it again), nor after (review-163 F4: a lapsed
   * registration kept the name's next owner out for good).
   */
  async #challengeable(holder: { namespace: string; name: string; uid: string }): Promise<{ uid: string; lapsed: boolean } | undefined> {
    const live = await this.#store.domainClient.get(holder.namespace, holder.name);
    if (!live || live.metadata?.uid !== holder.uid) return undefined;
    if (live.status?.delegatedAt === undefined) return { uid: holder.uid, lapsed: false };
    return delegationLapsed(live, this.#now()) ? { uid: holder.uid, lapsed: true } : undefined;
  }

  /**
   * Past the project's domain limit, however the domains were made (the API refuses the add; `kubectl apply`
   * cannot be refused): the number of older active domains when this one, without a zone yet, is not among
   * the first {@link MAX_DOMAINS_PER_PROJECT}; `undefined` otherwise. A zone is a billed resource at the
   * provider, whose quota the whole installation shares.
   */
  #overLimit(domain: ProjectDomain): number | undefined {
    if (domain.status?.hostedZoneId) return undefined;
    const active = this.#store.activeDomains(domain.metadata?.namespace ?? '').sort(byAge);
    const at = active.findIndex((d) => d.metadata?.uid === domain.metadata?.uid);
    return at >= MAX_DOMAINS_PER_PROJECT ? MAX_DOMAINS_PER_PROJECT : undefined;
  }

  /**
   * Soft-deleted domains of the project beyond {@link MAX_DELETED_DOMAINS_KEPT}, oldest first, are deleted
   * (at most a few per call): the history a project keeps. Only retired ones (zone gone, finalizer released),
   * which nothing reconciles any more, and only ones the API created: a manifest's object is the user's.
   */
  async pruneHistory(namespace: string): Promise<void> {
    const retired = this.#store
      .allDomains(namespace)
      .filter((d) => !isActive(d) && d.status?.state === 'deleted' && !d.metadata?.finalizers?.includes(ZONE_FINALIZER) && d.metadata?.annotations?.[CREATED_BY_API_ANNOTATION] === 'true')
      .sort(byAge);
    for (const old of oldestBeyond(retired, MAX_DELETED_DOMAINS_KEPT, MAX_HISTORY_PRUNED_PER_CALL)) {
      await this.#store.domainClient.delete(namespace, old.metadata?.name ?? '').catch(ignoreGone);
    }
  }

  /**
   * Lets go of the domain's DnsRecords being deleted (or of every one, for a domain that is gone): they are
   * out of its zone, or it has none. Read from the apiserver, so a deletion the cache has not shown yet counts.
   */
  async releaseDeletedRecords(domain: { metadata?: { namespace?: string; name?: string } }): Promise<void> {
    await this.#release((await this.#recordsNow(domain)).leaving);
  }

  /** The domain's DnsRecords as the apiserver has them now: live ones, and deleted ones this controller holds. */
  async #recordsNow(domain: { metadata?: { namespace?: string; name?: string } }): Promise<{ live: DnsRecord[]; leaving: DnsRecord[] }> {
    const { namespace = '', name = '' } = domain.metadata ?? {};
    const ofDomain = (await this.#store.recordClient.list(namespace)).items.filter((r) => r.spec.domainRef.name === name);
    return {
      live: ofDomain.filter((r) => !r.metadata?.deletionTimestamp),
      leaving: ofDomain.filter((r) => r.metadata?.deletionTimestamp && hasFinalizer(r, RECORD_FINALIZER)),
    };
  }

  async #release(records: readonly DnsRecord[]): Promise<void> {
    await inParallel(records, (r) => removeFinalizer(this.#store.recordClient, r, RECORD_FINALIZER).catch(ignoreGone));
  }

  /** Deletes the zone; when the provider refuses, the status says so (else nothing would) before the error propagates. */
  async #deleteZone(domain: ProjectDomain, zoneId: string): Promise<void> {
    try {
      await this.#settings.provider.deleteZone(zoneId);
    } catch (err) {
      const { failure, error } = failureOf(err);
      await this.#store.updateDomainStatus(domain, (live) => {
        const status = stalledDomain(live, domainStatus(live, { deletionFailed: failure }, this.#now()), this.#now());
        return statusChanged(live.status, status) ? status : undefined;
      });
      throw error;
    }
  }

  /**
   * A zone created for `domain` whose id never reached its status: the pass that created it died, or the
   * object changed, between the provider's answer and the status write. Found by its caller reference (the
   * domain's uid), so it is not left behind, unseen and billed. A name that was never valid never had a zone.
   */
  async #unrecordedZone(domain: ProjectDomain): Promise<string | undefined> {
    const uid = domain.metadata?.uid;
    const name = checkDomainName(domain.spec.domain);
    if (!uid || !name.ok || name.domain !== domain.spec.domain) return undefined;
    return this.#settings.provider.findZone(domain.spec.domain, zoneCallerReference(domain));
  }

  async #zone(domain: ProjectDomain): Promise<{ zoneId: string; nameservers: readonly string[] } | { failure: ProviderFailure; error: DnsProviderError }> {
    const s = domain.status;
    // Known and healthy: no provider round trip (a record sync would notice a zone gone missing).
    if (s?.hostedZoneId && s.nameservers?.length && findCondition(s.conditions, 'ZoneReady')?.status === 'True') {
      return { zoneId: s.hostedZoneId, nameservers: s.nameservers };
    }
    try {
      return await this.#settings.provider.createZone(domain.spec.domain, zoneCallerReference(domain));
    } catch (err) {
      return failureOf(err);
    }
  }

  /** Each record's Ready condition, written where it changed; a lost race is left to the next pass. */
  async #writeRecordStatuses(domain: ProjectDomain, records: readonly DnsRecord[], conditions: ReadonlyMap<string, ConditionUpdate>, failure?: string): Promise<void> {
    const now = this.#now();
    await inParallel(records, async (record) => {
      const id = record.metadata?.name ?? '';
      const update =
        conditions.get(id) ??
        (failure && findCondition(record.status?.conditions, 'Ready')?.status !== 'True'
          ? { type: 'Ready', status: 'False' as const, reason: ProjectDomainReasons.NotWritten, message: `Not written yet: ${failure}` }
          : undefined);
      if (!update) return;
      const generation = record.metadata?.generation;
      const fqdn = absoluteName(record.spec.name, domain.spec.domain);
      const status: DnsRecordStatus = {
        ...record.status,
        observedGeneration: generation,
        ...(fqdn.length <= 253 ? { fqdn } : {}),
        conditions: withStalled('DnsRecord', setCondition(record.status?.conditions, update, generation, now).conditions, generation, now),
      };
      if (!statusChanged(record.status, status)) return;
      try {
        await this.#store.recordClient.replaceStatus({ ...record, status });
      } catch (err) {
        if (!isConflict(err) && !isNotFound(err)) throw err;
      }
    });
  }
}

/**
 * The caller reference of the domain's next zone: its uid, then, once zones of it were deleted while it stayed,
 * the uid and their count. The provider never accepts a reference twice, even for a deleted zone, so a domain
 * whose zone went (its name refused or taken for a while) could not have another one under its uid.
 */
export function zoneCallerReference(domain: ProjectDomain): string {
  const uid = domain.metadata?.uid ?? '';
  const deleted = domain.status?.zonesDeleted ?? 0;
  return deleted > 0 ? `${uid}.${deleted}` : uid;
}

/** A record deleted or changed meanwhile: the next pass sees it as it is. */
function ignoreGone(err: unknown): undefined {
  if (isNotFound(err) || isConflict(err)) return undefined;
  throw err;
}

/** `status` with `Stalled` following its Ready condition (src/conditions/stalled.ts). */
function stalledDomain(live: ProjectDomain, status: NonNullable<ProjectDomain['status']>, now: Date): NonNullable<ProjectDomain['status']> {
  return { ...status, conditions: withStalled('ProjectDomain', status.conditions, live.metadata?.generation, now) };
}
