import { describe, expect, it } from 'vitest';
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import { MemoryDnsProvider } from '../../../src/dns/memory-provider.ts';
import { syncDomainRecords } from './record-sync.ts';

const record = (name: string, spec: Partial<DnsRecord['spec']>): DnsRecord => ({
  metadata: { name, creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { domainRef: { name: 'd' }, name: 'www', type: 'A', values: ['192.0.2.1'], ttl: 300, ...spec },
});

async function zone() {
  const provider = new MemoryDnsProvider({ ownerId: 'test' });
  const { zoneId } = await provider.createZone('shop.test', 'ref');
  const sync = (records: DnsRecord[], allowWrites = true) => syncDomainRecords({ provider, ownerId: 'test', zoneId, domain: 'shop.test', records, allowWrites });
  const names = async () => (await provider.listRecords(zoneId)).filter((r) => !r.name.startsWith('_cw-') && r.type !== 'NS' && r.type !== 'SOA').map((r) => `${r.name} ${r.type}`);
  return { sync, names };
}

describe('syncDomainRecords', () => {
  it('writes records and says per record how it fared', async () => {
    const { sync, names } = await zone();
    const result = await sync([record('r-1', {}), record('r-2', { name: 'api', type: 'CNAME', values: ['www.shop.test'] }), record('r-3', { name: 'www', type: 'CNAME', values: ['x.example.net'] })]);
    expect(await names()).toEqual(['api.shop.test CNAME', 'www.shop.test A']);
    expect(result.outcome).toMatchObject({ applied: 2, held: 0 });
    expect(result.conditions.get('r-1')).toMatchObject({ status: 'True', reason: 'Applied' });
    expect(result.conditions.get('r-3')).toMatchObject({ status: 'False', reason: 'Conflict' });
    expect(result.outcome.rejected[0]).toContain('r-3');
  });

  it('holds writes while not managed but still deletes', async () => {
    const { sync, names } = await zone();
    await sync([record('r-1', {})]);
    const held = await sync([record('r-2', { name: 'api' })], false);
    expect(await names()).toEqual([]);
    expect(held.conditions.get('r-2')).toMatchObject({ status: 'False', reason: 'DelegationPending' });
  });

  it('deletes from the zone what is no longer among the records', async () => {
    const { sync, names } = await zone();
    await sync([record('r-1', {}), record('r-2', { name: 'api' })]);
    await sync([record('r-2', { name: 'api' })]);
    expect(await names()).toEqual(['api.shop.test A']);
  });
});
