import { describe, expect, it } from 'vitest';
import type { AppHostname } from '../../apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../apis/v1alpha1/dns-record.ts';
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { NO_TLS } from './tls-view.ts';
import { domainView, hostnameView, recordView } from './views.ts';

const t = '2026-01-01T12:00:00Z';
const ready = (status: 'True' | 'False', reason: string, message = 'm') => [{ type: 'Ready', status, reason, message, lastTransitionTime: t }];

describe('views', () => {
  it('a domain: status from the state, deleted from the spec, reason and message from Ready', () => {
    const d: ProjectDomain = {
      metadata: { creationTimestamp: t },
      spec: { domain: 'shop.test' },
      status: { state: 'managed', hostedZoneId: 'Z1', nameservers: ['ns1.x.net'], conditions: ready('True', 'Managed', 'ok') },
    };
    expect(domainView(d, NO_TLS)).toEqual({
      domain: 'shop.test',
      dns_mode: 'zone_delegated',
      status: 'managed',
      hosted_zone_id: 'Z1',
      nameservers: ['ns1.x.net'],
      status_reason: 'Managed',
      status_message: 'ok',
      created_at: t,
      tls: NO_TLS,
    });
    expect(domainView({ ...d, spec: { ...d.spec, deleted: true } }, NO_TLS).status).toBe('deleted');
    expect(domainView({ spec: { domain: 'a.test' } }, NO_TLS)).toMatchObject({ status: 'pending_delegation', hosted_zone_id: '', status_reason: 'Creating' });
    // Deleted, its zone not yet: said so rather than the Ready it had.
    expect(domainView({ ...d, spec: { ...d.spec, deleted: true } }, NO_TLS)).toMatchObject({ status: 'deleted', status_reason: 'Deleting' });
    const retired = { ...d, spec: { ...d.spec, deleted: true }, status: { state: 'deleted' as const, conditions: ready('False', 'Deleted', 'gone') } };
    expect(domainView(retired, NO_TLS)).toMatchObject({ status: 'deleted', status_reason: 'Deleted' });
  });

  it('a record: applied, pending or failed, with its owner when the platform wrote it', () => {
    const r: DnsRecord = {
      metadata: { name: 'h-1', creationTimestamp: t },
      spec: { domainRef: { name: 'd' }, name: 'www', type: 'CNAME', values: ['runtime.x.net'], owner: { kind: 'platform_app', resourceType: 'runtime_app', resourceId: 'web' } },
    };
    expect(recordView(r, 'shop.test')).toMatchObject({
      record_id: 'h-1',
      fqdn: 'www.shop.test',
      ttl: 300,
      status: 'pending',
      owner: { kind: 'platform_app', owner_resource_type: 'runtime_app', owner_resource_id: 'web' },
    });
    expect(recordView({ ...r, status: { conditions: ready('True', 'Applied') } }, 'shop.test').status).toBe('applied');
    expect(recordView({ ...r, status: { conditions: ready('False', 'DelegationPending') } }, 'shop.test').status).toBe('pending');
    expect(recordView({ ...r, status: { conditions: ready('False', 'CnameConflict', 'clash') } }, 'shop.test')).toMatchObject({ status: 'failed', status_message: 'clash' });
    const { owner: _o, ...manual } = r.spec;
    expect(recordView({ ...r, spec: manual }, 'shop.test').owner).toBeUndefined();
  });

  it('a hostname: dns_records in external mode, managed_dns in managed mode', () => {
    const h: AppHostname = {
      metadata: { creationTimestamp: t },
      spec: { appRef: { name: 'web' }, hostname: 'www.shop.test', dnsMode: 'managed_project_domain' },
      status: {
        dnsRecords: [{ recordType: 'CNAME', name: 'www.shop.test', value: 'runtime.x.net' }],
        conditions: [{ type: 'DnsReady', status: 'True', reason: 'RecordsApplied', message: '', lastTransitionTime: t }],
      },
    };
    expect(hostnameView(h, NO_TLS, 'shop.test')).toMatchObject({
      status: 'pending',
      managed_dns: { project_domain: 'shop.test', status: 'applied', records: [{ record_type: 'CNAME', name: 'www.shop.test', value: 'runtime.x.net' }] },
    });
    // Not answered yet, or still writing: pending, never a failure the controller did not report.
    expect(hostnameView({ ...h, status: { ...h.status, conditions: [] } }, NO_TLS, 'shop.test').managed_dns).toEqual({ project_domain: 'shop.test', status: 'pending' });
    const dnsReady = (status: 'True' | 'False', reason: string) => [{ type: 'DnsReady', status, reason, message: 'm', lastTransitionTime: t }];
    expect(hostnameView({ ...h, status: { ...h.status, conditions: dnsReady('False', 'Writing') } }, NO_TLS, 'shop.test').managed_dns?.status).toBe('pending');
    expect(hostnameView({ ...h, status: { ...h.status, conditions: dnsReady('False', 'ProviderError') } }, NO_TLS, 'shop.test').managed_dns).toEqual({ project_domain: 'shop.test', status: 'failed' });
    const external = hostnameView({ ...h, spec: { ...h.spec, dnsMode: 'external_records' }, status: { ...h.status, state: 'active' } }, NO_TLS);
    expect(external).toMatchObject({ status: 'active', dns_records: [{ record_type: 'CNAME' }] });
    expect(external.managed_dns).toBeUndefined();
  });
});
