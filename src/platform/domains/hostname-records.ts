// The DNS side of an app hostname: the records an owner publishes (external_records: the CNAME to the
// runtime plus an ownership TXT challenge), or the platform-owned DnsRecords written into a managed project
// domain (managed_project_domain), which the AppHostname controller keeps as they should be.
import { createHash } from 'node:crypto';
import { HostnameReasons, type AppHostname, type RequiredDnsRecord } from '../../apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../apis/v1alpha1/dns-record.ts';
import { ProjectDomainReasons, type ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { API_VERSION } from '../../apis/v1alpha1/group-version.ts';
import { findCondition, statusChanged } from '../../conditions/index.ts';
import { externalAppRecords, managedAppRecords, type RuntimeTarget } from '../../dns/app-records.ts';
import { absoluteName } from '../../dns/names.ts';
import { isAlreadyExists, isConflict, isNotFound } from '../../kube/index.ts';
import { PROJECT_LABEL } from '../resources.ts';
import type { DomainStore } from './domain-store.ts';
import { ConflictError } from '../../errors.ts';

/** The TXT record proving who attached an external hostname: `_cloudwright.<hostname>`. */
export const CHALLENGE_LABEL = '_cloudwright';
const CHALLENGE_PREFIX = 'cloudwright-verification=';

/** The records the owner of an `external_records` hostname publishes. */
export function externalRecords(hostname: string, target: RuntimeTarget, token: string): RequiredDnsRecord[] {
  return [...externalAppRecords(hostname, target), challengeRecord(hostname, token)];
}

/** The ownership challenge an external hostname's owner publishes: TXT `_cloudwright.<hostname>`. */
export function challengeRecord(hostname: string, token: string): RequiredDnsRecord {
  return { recordType: 'TXT', name: `${CHALLENGE_LABEL}.${hostname}`, value: `${CHALLENGE_PREFIX}${token}` };
}

/**
 * What verifying an external hostname looks up: `records` with the binding's own challenge in place of any
 * other at its name. Routing records alone would prove only where the name points, not who controls it.
 */
export function withChallenge(records: readonly RequiredDnsRecord[], hostname: string, token: string): RequiredDnsRecord[] {
  const challenge = challengeRecord(hostname, token);
  return [...records.filter((r) => !(r.recordType === 'TXT' && r.name === challenge.name)), challenge];
}

/**
 * The ownership challenge of an external binding, derived from the AppHostname's uid: the API and the
 * operator arrive at the same token without coordinating, and another binding (another project) can never
 * have it. Not a secret: the owner publishes it.
 */
export function challengeToken(h: AppHostname): string {
  return createHash('sha256')
    .update(`cloudwright-verification ${h.metadata?.uid ?? ''}`)
    .digest('hex')
    .slice(0, 32);
}

/** The DnsRecord name of a platform-owned record: stable per hostname and type, so a repeat finds it. */
export function managedRecordName(hostname: string, type: string): string {
  return `h-${createHash('sha256').update(`${hostname} ${type}`).digest('hex').slice(0, 20)}`;
}

/** The platform-owned DnsRecords of `h` in `domain`, as they should be. */
export function desiredManagedRecords(h: AppHostname, domain: ProjectDomain, target: RuntimeTarget): DnsRecord[] {
  const namespace = h.metadata?.namespace ?? '';
  return managedAppRecords(h.spec.hostname, domain.spec.domain, h.spec.appRef.name, target).map((spec) => ({
    metadata: {
      name: managedRecordName(h.spec.hostname, spec.type),
      namespace,
      labels: { [PROJECT_LABEL]: namespace },
      // Owned by the hostname: deleting the binding (or its app) lets the garbage collector take them too.
      ownerReferences: [{ apiVersion: API_VERSION, kind: 'AppHostname', name: h.metadata?.name ?? '', uid: h.metadata?.uid ?? '', controller: true }],
    },
    spec: { domainRef: { name: domain.metadata?.name ?? '' }, ...spec },
  }));
}

/** The records as the attach result lists them. */
export function recordItems(records: readonly DnsRecord[], domain: ProjectDomain): RequiredDnsRecord[] {
  return records.flatMap((r) => r.spec.values.map((value) => ({ recordType: r.spec.type, name: absoluteName(r.spec.name, domain.spec.domain), value })));
}

/**
 * Creates the platform-owned DnsRecords of `h` that are missing and corrects those that differ; an existing
 * identical record is left untouched (a repeated attach writes nothing). Answers them as stored.
 *
 * @throws ConflictError when a record keeps changing under it (a deletion or another binding racing)
 */
export async function ensureManagedRecords(store: DomainStore, desired: readonly DnsRecord[]): Promise<DnsRecord[]> {
  const out: DnsRecord[] = [];
  for (const want of desired) {
    const current = await ensureRecord(store, want);
    await store.settleObject(store.caches.records, current);
    out.push(current);
  }
  return out;
}

/** How often one record's write is retried after losing a race to another writer. */
const MAX_RECORD_ATTEMPTS = 5;

/** `want` written (or left as it is, when equal): first against the cache, then, after a lost race, the apiserver. */
async function ensureRecord(store: DomainStore, want: DnsRecord): Promise<DnsRecord> {
  const namespace = want.metadata?.namespace ?? '';
  const name = want.metadata?.name ?? '';
  for (let attempt = 1; ; attempt++) {
    const current = (attempt === 1 ? store.caches.records.get(`${namespace}/${name}`) : undefined) ?? (await store.recordClient.get(namespace, name));
    try {
      if (!current) return await store.recordClient.create(want);
      // Leaving its zone (its finalizer holds it until it has): created anew once it is gone, whose event
      // brings the binding back here.
      if (current.metadata?.deletionTimestamp) return current;
      if (current.spec.domainRef.name !== want.spec.domainRef.name || controllerUid(current) !== controllerUid(want)) {
        // Another domain (a closer one was added) or another binding (detached and attached again): `domainRef`
        // cannot change, and the owner decides when the garbage collector takes the record. Replaced, not edited.
        await store.recordClient.delete(namespace, name, { preconditions: { uid: current.metadata?.uid } });
        const leaving = await store.recordClient.get(namespace, name); // its finalizer may hold it a while
        return leaving ?? (await store.recordClient.create(want));
      }
      // Conditional on the version read: a record changed meanwhile is read again, never overwritten blind.
      return statusChanged(current.spec, want.spec) ? await store.recordClient.replace({ ...current, spec: want.spec }) : current;
    } catch (err) {
      if (!isConflict(err) && !isAlreadyExists(err)) throw err;
      if (attempt >= MAX_RECORD_ATTEMPTS) throw new ConflictError(`The DNS record ${name} keeps changing while it is written; retry.`);
    }
  }
}

/**
 * Deletes the platform-owned DnsRecords of `h` that are not among `desired` (the runtime target changed from
 * a CNAME to addresses, or the binding went from managed to external mode): left behind, an older one would
 * keep its place in the zone and refuse the records that replace it. Their finalizer takes them out of the
 * zone first.
 */
export async function removeStaleManagedRecords(store: DomainStore, h: AppHostname, desired: readonly DnsRecord[]): Promise<void> {
  const wanted = new Set(desired.map((r) => r.metadata?.name));
  const stale = store.caches.records
    .list(h.metadata?.namespace)
    .filter((r) => r.metadata?.namespace === h.metadata?.namespace && controllerUid(r) === h.metadata?.uid && !wanted.has(r.metadata?.name) && !r.metadata?.deletionTimestamp);
  await Promise.all(
    stale.map((r) =>
      store.recordClient.delete(r.metadata?.namespace ?? '', r.metadata?.name ?? '', { preconditions: { uid: r.metadata?.uid } }).catch((err: unknown) => {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }),
    ),
  );
}

/** Why an apex `hostname` cannot be routed: only A and AAAA records can, and the runtime has no addresses. */
export function noRuntimeAddresses(hostname: string): string {
  return `${hostname} is the apex of its zone, where only A and AAAA records can route it, and this platform has no runtime addresses configured (CW_RUNTIME_DNS_IPV4, CW_RUNTIME_DNS_IPV6).`;
}

export function controllerUid(record: DnsRecord): string | undefined {
  return record.metadata?.ownerReferences?.find((r) => r.controller)?.uid;
}

/** Whether every record is in the zone, and if not, why (the first record's reason). */
export function recordsApplied(records: readonly DnsRecord[], store: DomainStore): { applied: boolean; reason: string; message: string } {
  for (const r of records) {
    const cached = store.caches.records.get(`${r.metadata?.namespace}/${r.metadata?.name}`) ?? r;
    // Still leaving the zone it was in (moving to a closer domain, or replaced): the new one is not written yet.
    if (cached.metadata?.deletionTimestamp || cached.spec.domainRef.name !== r.spec.domainRef.name) {
      return { applied: false, reason: HostnameReasons.Writing, message: 'The records are not written to the zone yet.' };
    }
    const ready = findCondition(cached.status?.conditions, 'Ready');
    if (ready?.status !== 'True') {
      if (!ready) return { applied: false, reason: HostnameReasons.Writing, message: 'The records are not written to the zone yet.' };
      // The zone refused or could not take them: the ProjectDomain controller retries, and so does a repeated attach.
      const message = ready.reason === ProjectDomainReasons.NotWritten ? `The records could not be written: ${ready.message} Repeat the request to retry.` : ready.message;
      return ready.reason === ProjectDomainReasons.NotWritten ? { applied: false, reason: HostnameReasons.ProviderError, message } : { applied: false, reason: ready.reason, message };
    }
  }
  return { applied: records.length > 0, reason: HostnameReasons.RecordsApplied, message: 'The records are in the project domain’s zone.' };
}
