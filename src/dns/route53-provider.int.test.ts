import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DnsProviderError } from './provider.ts';
import { Route53Provider } from './route53-provider.ts';
import { syncZone } from './testing/sync-zone.ts';
import { describeDnsProviderContract } from './testing/dns-provider-contract.ts';

// moto accepts any credentials; these are fixed dummies, never real ones.
const credentials = { accessKeyId: 'AKIDCLOUDWRIGHTTEST', secretAccessKey: 'cloudwright-test-secret-key' };
const endpoint = inject('route53Endpoint');
const provider = new Route53Provider({ ownerId: 'contract', endpoint, credentials, region: 'us-east-1' });
const foreign = new Route53Provider({ ownerId: 'someone-else', endpoint, credentials, region: 'us-east-1' });
afterAll(() => {
  provider.destroy();
  foreign.destroy();
});

describeDnsProviderContract('Route53Provider on moto', () => ({ provider, foreign, missingZoneId: 'Z0CLOUDWRIGHTMISSING' }));

describe('Route53Provider', () => {
  it('tags the zones it creates with the owner id, and finds the zone again after a lost answer', async () => {
    const domain = `tagged-${Date.now()}.example`;
    const first = await provider.createZone(domain, `ref-${domain}`);
    // A second provider process (after a crash) with the same caller reference gets the same zone.
    const again = new Route53Provider({ ownerId: 'contract', endpoint, credentials });
    try {
      expect(await again.createZone(domain, `ref-${domain}`)).toEqual(first);
    } finally {
      again.destroy();
    }
    await provider.deleteZone(first.zoneId);
  });

  it('turns an unreachable endpoint into a retryable error that names neither endpoint nor credentials', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = new Route53Provider({ ownerId: 'contract', endpoint: `http://127.0.0.1:${port}`, credentials, maxAttempts: 1 });
    try {
      const err = await down.listRecords('Z0CLOUDWRIGHTANY').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DnsProviderError);
      expect(err).toMatchObject({ code: 'unavailable', retryable: true, status: 503, op: 'listRecords' });
      const message = (err as Error).message;
      expect(message).not.toContain(String(port));
      expect(message).not.toContain(credentials.accessKeyId);
      expect(message).not.toContain(credentials.secretAccessKey);
    } finally {
      down.destroy();
    }
  });
});

describe('syncZone on Route 53 (moto)', () => {
  it('writes marked records, converges, and never touches records written by anyone else', async () => {
    const domain = `sync-${Date.now()}.example`;
    const { zoneId } = await provider.createZone(domain, `ref-${domain}`);
    // Written without a mark, as by hand in the console.
    await provider.applyChanges(zoneId, { create: [{ name: `legacy.${domain}`, type: 'TXT', ttl: 300, values: ['keep me'] }], update: [], delete: [] });
    const base = { provider, zoneId, domain, ownerId: 'contract', allowWrites: true };
    const desired = [
      { id: 'www', name: `www.${domain}`, type: 'CNAME', ttl: 300, values: ['app.runtime.example.net'] },
      { id: 'wild', name: `*.preview.${domain}`, type: 'A', ttl: 60, values: ['192.0.2.1'] },
      { id: 'legacy', name: `legacy.${domain}`, type: 'TXT', ttl: 300, values: ['take over'] },
    ];
    const first = await syncZone({ ...base, desired });
    expect(first.applied).toBe(true);
    expect(first.plan.conflicts.map((c) => [c.id, c.reason])).toEqual([['legacy', 'ForeignRecord']]);
    expect((await syncZone({ ...base, desired })).applied).toBe(false);

    const emptied = await syncZone({ ...base, desired: [] });
    expect(emptied.applied).toBe(true);
    const left = await provider.listRecords(zoneId);
    expect(left.map((r) => `${r.name} ${r.type}`).sort()).toEqual([`${domain} NS`, `${domain} SOA`, `legacy.${domain} TXT`].sort());
    expect(left.find((r) => r.type === 'TXT')?.values).toEqual(['keep me']);
    await provider.deleteZone(zoneId);
  });
});
