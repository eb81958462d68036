import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDelegation } from './delegation.ts';
import { startParentZoneControl, type ParentZoneControl } from './parent-zone-control.ts';
import { startParentZoneServer, type ParentZoneServer } from './parent-zone-server.ts';
import { queryDns, parseServerAddress } from './dns-client.ts';

let zone: ParentZoneServer;
let control: ParentZoneControl;
beforeAll(async () => {
  zone = await startParentZoneServer({ suffix: 'test' });
  control = await startParentZoneControl(zone);
});
afterAll(async () => {
  await control.stop();
  await zone.stop();
});

const put = (path: string, body: unknown) => fetch(`${control.url}${path}`, { method: 'PUT', body: JSON.stringify(body) });

describe('parent zone control endpoint', () => {
  it('delegates and undelegates a domain, as the delegation check sees it', async () => {
    const ns = ['ns-1.awsdns-01.org', 'ns-2.awsdns-02.net'];
    expect((await put('/delegations/shop.test', { nameservers: ns })).status).toBe(200);
    expect((await checkDelegation('shop.test', ns, { parentServer: zone.address })).delegated).toBe(true);
    expect((await fetch(`${control.url}/delegations/shop.test`, { method: 'DELETE' })).status).toBe(200);
    const after = await checkDelegation('shop.test', ns, { parentServer: zone.address });
    expect(after).toMatchObject({ delegated: false, reason: 'NotDelegated' });
  });

  it('publishes records', async () => {
    expect((await put('/records/www.ext.test/CNAME', { values: ['runtime.apps.localhost'] })).status).toBe(200);
    const answer = await queryDns(parseServerAddress(zone.address), 'www.ext.test', 'CNAME');
    expect(answer.answers.map((a) => (a as { data?: unknown }).data)).toEqual(['runtime.apps.localhost']);
  });

  it('refuses what it cannot do, with a reason', async () => {
    const bad = await put('/delegations/shop.test', { nameservers: 'ns1' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain('nameservers must be an array');
    expect((await put('/records/www.ext.test/MX', { values: ['10 mx.example.com'] })).status).toBe(400);
    expect((await fetch(`${control.url}/nope`)).status).toBe(404);
  });
});
