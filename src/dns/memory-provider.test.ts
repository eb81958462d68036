import { describe, expect, it } from 'vitest';
import { MemoryDnsBackend, MemoryDnsProvider } from './memory-provider.ts';
import { DnsProviderError } from './provider.ts';
import { describeDnsProviderContract } from './testing/dns-provider-contract.ts';

const backend = new MemoryDnsBackend();
describeDnsProviderContract('MemoryDnsProvider', () => ({
  provider: new MemoryDnsProvider({ ownerId: 'contract', backend }),
  foreign: new MemoryDnsProvider({ ownerId: 'someone-else', backend }),
  missingZoneId: 'ZMEMMISSING',
}));

describe('MemoryDnsProvider', () => {
  it('applies a change atomically, as Route 53 does', async () => {
    const provider = new MemoryDnsProvider({ ownerId: 'test' });
    const { zoneId } = await provider.createZone('example.com', 'ref');
    const err = await provider
      .applyChanges(zoneId, {
        create: [
          { name: 'ok.example.com', type: 'A', ttl: 300, values: ['192.0.2.1'] },
          { name: 'www.example.org', type: 'A', ttl: 300, values: ['192.0.2.1'] },
        ],
        update: [],
        delete: [],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DnsProviderError);
    expect((await provider.listRecords(zoneId)).map((r) => r.name)).not.toContain('ok.example.com');
  });

  it('fails the next call of an operation on request (a test hook for controllers)', async () => {
    const provider = new MemoryDnsProvider({ ownerId: 'test' });
    const { zoneId } = await provider.createZone('example.com', 'ref');
    provider.failNext('listRecords');
    await expect(provider.listRecords(zoneId)).rejects.toMatchObject({ code: 'unavailable', retryable: true, status: 503 });
    expect((await provider.listRecords(zoneId)).length).toBe(2);
  });

  it('holds the next call of an operation until released (a provider slower than a bound)', async () => {
    const provider = new MemoryDnsProvider({ ownerId: 'test' });
    const release = provider.holdNext('createZone');
    let done = false;
    const created = provider.createZone('example.com', 'ref').then((z) => ((done = true), z));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    release();
    expect((await created).zoneId).toMatch(/^ZMEM/);
    // Only the next call: the one after runs at once.
    expect((await provider.createZone('example.org', 'ref-2')).zoneId).toMatch(/^ZMEM/);
  });

  it('never reuses a caller reference, for a deleted zone or another domain (as Route 53)', async () => {
    const provider = new MemoryDnsProvider({ ownerId: 'test' });
    const { zoneId } = await provider.createZone('example.com', 'uid-1');
    await expect(provider.createZone('example.org', 'uid-1')).rejects.toMatchObject({ code: 'rejected', providerCode: 'HostedZoneAlreadyExists' });
    await provider.deleteZone(zoneId);
    await expect(provider.createZone('example.com', 'uid-1')).rejects.toMatchObject({ code: 'rejected' });
  });

  it('refuses an invalid owner id at construction', () => {
    expect(() => new MemoryDnsProvider({ ownerId: 'Not Valid' })).toThrow(/owner id/);
  });
});
