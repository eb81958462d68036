// The REST shapes of project domains, DNS records and app hostnames, from their custom resources. Pure.
import { HostnameReasons, type AppHostname, type RequiredDnsRecord } from '../../apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../apis/v1alpha1/dns-record.ts';
import { ProjectDomainReasons, type ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { findCondition } from '../../conditions/index.ts';
import { absoluteName } from '../../dns/names.ts';
import { TTL_DEFAULT } from '../../dns/records.ts';
import type { TlsView } from './tls-view.ts';

export interface DomainView {
  domain: string;
  dns_mode: 'zone_delegated';
  status: 'pending_delegation' | 'managed' | 'deleted';
  hosted_zone_id: string;
  nameservers: string[];
  /** The Ready condition's reason: why the domain is (not) managed. */
  status_reason: string;
  status_message: string;
  last_checked_at?: string;
  created_at: string;
  deleted_at?: string;
  /** The certificate for the domain and its wildcard (tls-view.ts). */
  tls: TlsView;
}

/** `tls`: the view of the domain's TlsCertificate (see tls-certificates.ts). */
export function domainView(d: ProjectDomain, tls: TlsView): DomainView {
  const status = d.spec.deleted ? 'deleted' : d.status?.state === 'managed' ? 'managed' : 'pending_delegation';
  // Deleted for the API at once (spec.deleted), but its zone and records go only once the controller has them.
  const ready =
    d.spec.deleted && d.status?.state !== 'deleted'
      ? { reason: 'Deleting', message: `The records and the hosted zone of ${d.spec.domain} are being deleted.` }
      : findCondition(d.status?.conditions, 'Ready');
  return {
    domain: d.spec.domain,
    dns_mode: 'zone_delegated',
    status,
    hosted_zone_id: d.status?.hostedZoneId ?? '',
    nameservers: [...(d.status?.nameservers ?? [])],
    status_reason: ready?.reason ?? 'Creating',
    status_message: ready?.message ?? 'The hosted zone is being created.',
    ...(d.status?.lastCheckedAt ? { last_checked_at: d.status.lastCheckedAt } : {}),
    created_at: d.metadata?.creationTimestamp ?? '',
    ...(d.status?.deletedAt ? { deleted_at: d.status.deletedAt } : {}),
    tls,
  };
}

export interface RecordOwnerView {
  kind: 'platform_app';
  owner_resource_type: 'runtime_app';
  owner_resource_id: string;
}

export interface RecordView {
  record_id: string;
  /** Relative to the domain, `@` for the apex. */
  name: string;
  fqdn: string;
  type: string;
  values: string[];
  ttl: number;
  /** Present on platform-owned records only. */
  owner?: RecordOwnerView;
  /** `applied` (in the zone), `pending` (waiting for the delegation or the provider) or `failed` (refused: see the message). */
  status: 'applied' | 'pending' | 'failed';
  status_reason: string;
  status_message: string;
  created_at: string;
}

const PENDING_REASONS: ReadonlySet<string> = new Set([ProjectDomainReasons.DelegationPending, ProjectDomainReasons.NotWritten]);

export function recordView(r: DnsRecord, domain: string): RecordView {
  const ready = findCondition(r.status?.conditions, 'Ready');
  const status = ready?.status === 'True' ? 'applied' : !ready || PENDING_REASONS.has(ready.reason) ? 'pending' : 'failed';
  const owner = r.spec.owner;
  return {
    record_id: r.metadata?.name ?? '',
    name: r.spec.name,
    fqdn: r.status?.fqdn ?? absoluteName(r.spec.name, domain),
    type: r.spec.type,
    values: [...r.spec.values],
    ttl: r.spec.ttl ?? TTL_DEFAULT,
    ...(owner ? { owner: { kind: owner.kind, owner_resource_type: owner.resourceType, owner_resource_id: owner.resourceId } } : {}),
    status,
    status_reason: ready?.reason ?? 'Pending',
    status_message: ready?.message ?? 'Not written to the zone yet.',
    created_at: r.metadata?.creationTimestamp ?? '',
  };
}

export interface DnsRecordItem {
  record_type: string;
  name: string;
  value: string;
}

export interface HostnameView {
  domain: string;
  dns_mode: 'external_records' | 'managed_project_domain';
  app_id: string;
  /** `pending` until finalize verified the records, then `active` (the app is served on it); `deleting` once detached, until its records are gone. */
  status: 'pending' | 'active' | 'deleting';
  status_reason: string;
  status_message: string;
  dns_records?: DnsRecordItem[];
  /** `status`: `applied` (in the zone), `pending` (being written, or not looked at yet) or `failed` (refused: see `status_message`). */
  managed_dns?: { project_domain: string; status: ManagedDnsStatus; records?: DnsRecordItem[] };
  created_at: string;
  /** The certificate for the host name (tls-view.ts). */
  tls: TlsView;
}

export type ManagedDnsStatus = 'applied' | 'pending' | 'failed';

/** DnsReady reasons of a managed binding whose records are still on their way to the zone (not a refusal). */
const DNS_IN_PROGRESS: ReadonlySet<string> = new Set([HostnameReasons.Writing]);

/**
 * Where a managed binding's records stand, from its DnsReady condition: `pending` while the controller has
 * not said (no condition yet) or is still writing them, never a failure it did not report.
 */
export function managedDnsStatus(h: AppHostname): ManagedDnsStatus {
  const dns = findCondition(h.status?.conditions, 'DnsReady');
  if (dns?.status === 'True') return 'applied';
  return dns === undefined || DNS_IN_PROGRESS.has(dns.reason) ? 'pending' : 'failed';
}

export const items = (records: readonly RequiredDnsRecord[]): DnsRecordItem[] => records.map((r) => ({ record_type: r.recordType, name: r.name, value: r.value }));

/**
 * The binding as `GET …/apps/{appId}/domains` lists it (and as the attach and finalize routes answer); `tls`
 * is the view of its TlsCertificate.
 */
export function hostnameView(h: AppHostname, tls: TlsView, projectDomain?: string): HostnameView {
  const mode = h.spec.dnsMode ?? 'external_records';
  const ready = findCondition(h.status?.conditions, 'Ready');
  const records = items(h.status?.dnsRecords ?? []);
  const dns = managedDnsStatus(h);
  return {
    domain: h.spec.hostname,
    dns_mode: mode,
    app_id: h.spec.appRef.name,
    status: h.status?.state === 'active' ? 'active' : 'pending',
    status_reason: ready?.reason ?? 'Attaching',
    status_message: ready?.message ?? 'The hostname is being attached.',
    ...(mode === 'external_records' ? { dns_records: records } : {}),
    ...(mode === 'managed_project_domain' ? { managed_dns: { project_domain: projectDomain ?? '', status: dns, ...(dns === 'applied' ? { records } : {}) } } : {}),
    created_at: h.metadata?.creationTimestamp ?? '',
    tls,
  } as HostnameView;
}
