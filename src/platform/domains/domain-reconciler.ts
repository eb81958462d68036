// One pass over a ProjectDomain: its hosted zone, optionally its delegation, its records, its status. The API
// runs it for a request (create, delegation check, record writes) so the answer reflects the world; the
// operator runs it for every change and on a timer (the periodic delegation re-check). Every step is
// idempotent (zone creation by caller reference, record changes by UPSERT), so the two never fight.
import type { DnsRecord, DnsRecordStatus } from '../../apis/v1alpha1/dns-record.ts';
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { findCondition, setCondition, statusChanged, type ConditionUpdate } from '../../conditions/index.ts';
import { checkDelegation, type DelegationResult } from '../../dns/delegation.ts';
import { checkDomainName } from '../../dns/domain-name.ts';
import { absoluteName } from '../../dns/names.ts';
import { DnsProviderError } from '../../dns/provider.ts';
import { isConflict, isNotFound } from '../../kube/index.ts';
import type { DnsSettings } from './dns-settings.ts';
import { byAge, type DomainStore } from './domain-store.ts';
import { domainStatus, type DomainObservation, type ProviderFailure } from './domain-status.ts';
import { syncDomainRecords } from './record-sync.ts';

/** Read-modify-write rounds of a finalizer removal before a conflict is given up to the caller. */
const MAX_CONFLICT_RETRIES = 5;

/** On ProjectDomains whose hosted zone exists: removed once the zone is deleted. */
export const ZONE_FINALIZER = 'cloudwright.dev/dns-zone';

/**
 * Set by the API on a ProjectDomain whose zone it is creating itself (to answer with the nameservers): the
 * operator leaves zone creation to it for `API_ZONE_GRACE_MS`, then takes over (the API may have crashed).
 * Route 53 would deduplicate two concurrent creates by caller reference, but not every implementation does
 * (moto creates two zones), and two zones for one domain would confuse everybody.
 */
export const ZONE_CREATOR_ANNOTATION = 'cloudwright.dev/zone-creator';
export const API_ZONE_GRACE_MS = 30_000;

/** How long the operator should still leave `domain`'s zone creation to the API (0: not at all). */
export function apiZoneGraceLeft(domain: ProjectDomain, now: Date): number {
  if (domain.metadata?.annotations?.[ZONE_CREATOR_ANNOTATION] !== 'api' || domain.status?.hostedZoneId) return 0;
  const created = Date.parse(domain.metadata.creationTimestamp ?? '');
  if (Number.isNaN(created)) return 0;
  return Math.max(0, created + API_ZONE_GRACE_MS - now.getTime());
}

export interface ReconcileOptions {
  /** Ask the parent zone whether the domain is delegated (the API's check, the operator's periodic re-check). */
  readonly checkDelegation?: boolean;
}

export interface DomainPass {
  readonly domain: ProjectDomain;
  /** The delegation verdict, when it was checked. */
  readonly delegation?: DelegationResult;
  /** The provider failed on the way (already in the status conditions). */
  readonly failure?: DnsProviderError;
}

function failureOf(err: unknown): { failure: ProviderFailure; error: DnsProviderError } {
  if (!(err instanceof DnsProviderError)) throw err;
  return { failure: { failure: err.code, message: err.message }, error: err };
}

/** Runs passes over ProjectDomains; see the file comment. */
export class DomainReconciler {
  readonly #store: DomainStore;
  readonly #settings: DnsSettings;
  readonly #now: () => Date;

  constructor(store: DomainStore, settings: DnsSettings, now: () => Date = () => new Date()) {
    this.#store = store;
    this.#settings = settings;
    this.#now = now;
  }

  /** Converges `domain` (read from a cache or the apiserver) and writes its status when it changed. */
  async reconcile(domain: ProjectDomain, options: ReconcileOptions = {}): Promise<DomainPass> {
    if (domain.spec.deleted) return { domain: await this.retire(domain) };
    const seen: { -readonly [K in keyof DomainObservation]: DomainObservation[K] } = {};
    let failure: DnsProviderError | undefined;
    let delegation: DelegationResult | undefined;
    const name = checkDomainName(domain.spec.domain);
    const holder = this.#store.holders(domain.spec.domain)[0];
    if (!name.ok || name.domain !== domain.spec.domain) {
      seen.invalid = { message: name.ok ? `${domain.spec.domain} is not in normal form; use ${name.domain}.` : name.message };
    } else if (holder && holder.metadata?.namespace !== domain.metadata?.namespace && byAge(holder, domain) < 0) {
      seen.takenBy = holder.metadata?.namespace ?? '';
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
        const managed = domainStatus(domain, seen, this.#now()).state === 'managed';
        const records = this.#store.recordsOf(domain);
        try {
          const result = await syncDomainRecords({
            provider: this.#settings.provider,
            ownerId: this.#settings.ownerId,
            zoneId: zone.zoneId,
            domain: domain.spec.domain,
            records,
            allowWrites: managed,
            confirm: async () => {
              const { namespace = '', name = '' } = domain.metadata ?? {};
              return (await this.#store.recordClient.list(namespace)).items.filter((r) => r.spec.domainRef.name === name && !r.metadata?.deletionTimestamp);
            },
          });
          seen.records = result.outcome;
          await this.#writeRecordStatuses(domain, records, result.conditions);
        } catch (err) {
          const f = failureOf(err);
          seen.records = f.failure;
          failure = f.error;
          await this.#writeRecordStatuses(domain, records, new Map(), f.failure.message);
        }
      }
    }
    const written = await this.#store.updateDomainStatus(domain, (live) => {
      const status = domainStatus(live, seen, this.#now());
      return statusChanged(live.status, status) ? status : undefined;
    });
    return { domain: written, ...(delegation ? { delegation } : {}), ...(failure ? { failure } : {}) };
  }

  /**
   * Soft delete (or a `kubectl delete`): the domain's DnsRecords and its hosted zone go; the status says so.
   * Idempotent; provider errors propagate (the zone must not be forgotten while it still exists).
   */
  async retire(domain: ProjectDomain): Promise<ProjectDomain> {
    const { namespace = '', name = '' } = domain.metadata ?? {};
    const records = (await this.#store.recordClient.list(namespace)).items.filter((r) => r.spec.domainRef.name === name);
    await Promise.all(records.map((r) => this.#store.recordClient.delete(namespace, r.metadata?.name ?? '')));
    const zoneId = domain.status?.hostedZoneId ?? (await this.#unrecordedZone(domain));
    if (zoneId) await this.#deleteZone(domain, zoneId);
    if (domain.metadata?.deletionTimestamp) return domain;
    let written = await this.#store.updateDomainStatus(domain, (live) => {
      const status = domainStatus(live, { deleted: true }, this.#now());
      return statusChanged(live.status, status) ? status : undefined;
    });
    // The operator may write the object meanwhile (its own status pass): on a conflict, re-read and try again,
    // so the finalizer list is always edited from its current value.
    for (let attempt = 1; written.metadata?.finalizers?.includes(ZONE_FINALIZER); attempt++) {
      try {
        written = await this.#store.domainClient.patch(namespace, name, {
          metadata: { resourceVersion: written.metadata.resourceVersion, finalizers: written.metadata.finalizers.filter((f) => f !== ZONE_FINALIZER) },
        });
        await this.#store.settleObject(this.#store.caches.domains, written);
      } catch (err) {
        const live = isConflict(err) && attempt < MAX_CONFLICT_RETRIES ? await this.#store.domainClient.get(namespace, name) : undefined;
        if (!live) throw err;
        written = live;
      }
    }
    return written;
  }

  /** Deletes the zone; when the provider refuses, the status says so (else nothing would) before the error propagates. */
  async #deleteZone(domain: ProjectDomain, zoneId: string): Promise<void> {
    try {
      await this.#settings.provider.deleteZone(zoneId);
    } catch (err) {
      const { failure, error } = failureOf(err);
      await this.#store.updateDomainStatus(domain, (live) => {
        const status = domainStatus(live, { deletionFailed: failure }, this.#now());
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
    return this.#settings.provider.findZone(domain.spec.domain, uid);
  }

  async #zone(domain: ProjectDomain): Promise<{ zoneId: string; nameservers: readonly string[] } | { failure: ProviderFailure; error: DnsProviderError }> {
    const s = domain.status;
    // Known and healthy: no provider round trip (a record sync would notice a zone gone missing).
    if (s?.hostedZoneId && s.nameservers?.length && findCondition(s.conditions, 'ZoneReady')?.status === 'True') {
      return { zoneId: s.hostedZoneId, nameservers: s.nameservers };
    }
    try {
      return await this.#settings.provider.createZone(domain.spec.domain, domain.metadata?.uid ?? '');
    } catch (err) {
      return failureOf(err);
    }
  }

  /** Each record's Ready condition, written where it changed; a lost race is left to the next pass. */
  async #writeRecordStatuses(domain: ProjectDomain, records: readonly DnsRecord[], conditions: ReadonlyMap<string, ConditionUpdate>, failure?: string): Promise<void> {
    const now = this.#now();
    await Promise.all(
      records.map(async (record) => {
        const id = record.metadata?.name ?? '';
        const update =
          conditions.get(id) ??
          (failure && findCondition(record.status?.conditions, 'Ready')?.status !== 'True'
            ? { type: 'Ready', status: 'False' as const, reason: 'NotWritten', message: `Not written yet: ${failure}` }
            : undefined);
        if (!update) return;
        const generation = record.metadata?.generation;
        const fqdn = absoluteName(record.spec.name, domain.spec.domain);
        const status: DnsRecordStatus = {
          ...record.status,
          observedGeneration: generation,
          ...(fqdn.length <= 253 ? { fqdn } : {}),
          conditions: setCondition(record.status?.conditions, update, generation, now).conditions,
        };
        if (!statusChanged(record.status, status)) return;
        try {
          const written = await this.#store.recordClient.replaceStatus({ ...record, status });
          await this.#store.settleObject(this.#store.caches.records, written);
        } catch (err) {
          if (!isConflict(err) && !isNotFound(err)) throw err;
        }
      }),
    );
  }
}
