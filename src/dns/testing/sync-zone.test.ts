import { describe, expect, it } from 'vitest';
import { MemoryDnsBackend, MemoryDnsProvider } from '../memory-provider.ts';
import { syncZone } from './sync-zone.ts';

describe('syncZone on the memory provider', () => {
  it('writes, re-plans to nothing, deletes only what it owns, and holds writes while pending', async () => {
    const backend = new MemoryDnsBackend();
    const provider = new MemoryDnsProvider({ ownerId: 'cw', backend });
    const { zoneId } = await provider.createZone('example.com', 'uid-1');
    // Someone adds a record by hand at the provider.
    await provider.applyChanges(zoneId, { create: [{ name: 'legacy.example.com', type: 'A', ttl: 300, values: ['198.51.100.1'] }], update: [], delete: [] });
    const base = { provider, zoneId, domain: 'example.com', ownerId: 'cw' };
    const www = { id: 'www', name: 'www.example.com', type: 'CNAME', ttl: 300, values: ['app.runtime.example.net'] };

    const first = await syncZone({ ...base, desired: [www], allowWrites: true });
    expect(first.applied).toBe(true);
    const again = await syncZone({ ...base, desired: [www], allowWrites: true });
    expect(again).toMatchObject({ applied: false, plan: { conflicts: [], held: [] } });

    const pending = await syncZone({ ...base, desired: [{ ...www, values: ['elsewhere.example.net'] }], allowWrites: false });
    expect(pending.applied).toBe(false);
    expect(pending.plan.held.map((d) => d.id)).toEqual(['www']);

    const emptied = await syncZone({ ...base, desired: [], allowWrites: false });
    expect(emptied.applied).toBe(true);
    const names = (await provider.listRecords(zoneId)).map((r) => `${r.name} ${r.type}`).sort();
    expect(names).toEqual(['example.com NS', 'example.com SOA', 'legacy.example.com A']);
  });

  it('propagates provider errors for the caller to retry', async () => {
    const provider = new MemoryDnsProvider({ ownerId: 'cw' });
    const { zoneId } = await provider.createZone('example.com', 'uid-1');
    provider.failNext('applyChanges');
    await expect(
      syncZone({ provider, zoneId, domain: 'example.com', ownerId: 'cw', allowWrites: true, desired: [{ name: 'a.example.com', type: 'A', ttl: 300, values: ['192.0.2.1'] }] }),
    ).rejects.toMatchObject({ name: 'DnsProviderError', retryable: true });
  });
});
