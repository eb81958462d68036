import { describe, expect, it } from 'vitest';
import type { AppHostname } from '../../apis/v1alpha1/app-hostname.ts';
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { challengeToken, desiredManagedRecords, externalRecords, managedRecordName, recordItems, withChallenge } from './hostname-records.ts';

const target = { hostname: 'runtime.apps.example.net', ipv4: ['192.0.2.1'] };
const domain: ProjectDomain = { metadata: { name: 'shop-test-1', uid: 'd-uid' }, spec: { domain: 'shop.test' } };
const hostname = (name: string): AppHostname => ({ metadata: { name, namespace: 'p', uid: 'h-uid' }, spec: { appRef: { name: 'web' }, hostname: name, dnsMode: 'managed_project_domain' } });

describe('hostname records', () => {
  it('external: the CNAME to the runtime and the ownership challenge', () => {
    expect(externalRecords('www.shop.example', target, 'abc123')).toEqual([
      { recordType: 'CNAME', name: 'www.shop.example', value: 'runtime.apps.example.net' },
      { recordType: 'TXT', name: '_cloudwright.www.shop.example', value: 'cloudwright-verification=abc123' },
    ]);
  });

  it('verification always looks the binding’s own challenge up, whatever the list holds', () => {
    const challenge = { recordType: 'TXT', name: '_cloudwright.shop.example', value: 'cloudwright-verification=mine' };
    expect(withChallenge([], 'shop.example', 'mine')).toEqual([challenge]);
    const cname = { recordType: 'CNAME', name: 'shop.example', value: 'runtime.apps.example.net' };
    expect(withChallenge([cname, { ...challenge, value: 'cloudwright-verification=theirs' }], 'shop.example', 'mine')).toEqual([cname, challenge]);
  });

  it('the challenge token belongs to the binding: stable, different for another binding', () => {
    expect(challengeToken(hostname('www.shop.test'))).toMatch(/^[0-9a-f]{32}$/);
    expect(challengeToken(hostname('www.shop.test'))).toBe(challengeToken(hostname('other.shop.test')));
    const other = { ...hostname('www.shop.test'), metadata: { uid: 'another-uid' } };
    expect(challengeToken(other)).not.toBe(challengeToken(hostname('www.shop.test')));
  });

  it('managed: platform-owned records named stably, owned by the hostname; A records at the apex', () => {
    const [www] = desiredManagedRecords(hostname('www.shop.test'), domain, target);
    expect(www?.metadata).toMatchObject({ name: managedRecordName('www.shop.test', 'CNAME'), namespace: 'p', ownerReferences: [{ kind: 'AppHostname', uid: 'h-uid', controller: true }] });
    expect(www?.spec).toEqual({
      domainRef: { name: 'shop-test-1' },
      name: 'www',
      type: 'CNAME',
      values: ['runtime.apps.example.net'],
      ttl: 300,
      owner: { kind: 'platform_app', resourceType: 'runtime_app', resourceId: 'web' },
    });
    const apex = desiredManagedRecords(hostname('shop.test'), domain, target);
    expect(apex.map((r) => [r.spec.name, r.spec.type])).toEqual([['@', 'A']]);
    expect(recordItems(apex, domain)).toEqual([{ recordType: 'A', name: 'shop.test', value: '192.0.2.1' }]);
    expect(managedRecordName('www.shop.test', 'CNAME')).toBe(managedRecordName('www.shop.test', 'CNAME'));
    expect(managedRecordName('www.shop.test', 'CNAME')).not.toBe(managedRecordName('www.shop.test', 'A'));
  });
});
