import { describe, expect, it } from 'vitest';
import type { TlsCertificate } from '../../src/apis/v1alpha1/tls-certificate.ts';
import { CertificateIndex, type MayServe } from './certificate-index.ts';
import { tlsCertificate } from './testing/certificates.ts';

const issued = (namespace: string, name: string, dnsNames: string[], serial: string, notAfter = '2027-01-01T00:00:00Z') =>
  tlsCertificate(namespace, name, dnsNames, { state: 'Issued', serial, dnsNames, notAfter });

function indexOf(...certs: TlsCertificate[]): { index: CertificateIndex; objects: Map<string, TlsCertificate> } {
  const objects = new Map(certs.map((c) => [`${c.metadata?.namespace}/${c.metadata?.name}`, c]));
  const index = new CertificateIndex((key) => objects.get(key));
  for (const key of objects.keys()) index.update(key);
  return { index, objects };
}

const anyone: MayServe = () => true;

describe('CertificateIndex', () => {
  it('finds the certificate naming a server name exactly, in any case and with a trailing dot', () => {
    const { index } = indexOf(issued('alpha', 'shop', ['www.shop.test', 'shop.test'], 'aa'));
    expect(index.lookup('www.shop.test', anyone)).toMatchObject({ namespace: 'alpha', name: 'shop', serial: 'aa' });
    expect(index.lookup('SHOP.test.', anyone)?.serial).toBe('aa');
    expect(index.lookup('other.test', anyone)).toBeUndefined();
    expect(index.lookup('', anyone)).toBeUndefined();
  });

  it('falls back to the wildcard of the parent, one label deep, and prefers an exact name', () => {
    const { index } = indexOf(issued('alpha', 'wild', ['*.alpha.apps.test'], 'w1'), issued('alpha', 'api', ['api.alpha.apps.test'], 'e1'));
    expect(index.lookup('shop.alpha.apps.test', anyone)?.serial).toBe('w1');
    expect(index.lookup('api.alpha.apps.test', anyone)?.serial).toBe('e1');
    expect(index.lookup('a.shop.alpha.apps.test', anyone)).toBeUndefined();
    expect(index.lookup('alpha.apps.test', anyone)).toBeUndefined();
  });

  it('passes over an expired exact certificate for a valid wildcard, and serves it only when nothing else is there', () => {
    const { index } = indexOf(issued('alpha', 'wild', ['*.alpha.apps.test'], 'w1'), issued('alpha', 'api', ['api.alpha.apps.test'], 'e1', '2026-01-01T00:00:00Z'));
    const now = Date.parse('2026-06-01T00:00:00Z');
    expect(index.lookup('api.alpha.apps.test', anyone, now)?.serial).toBe('w1');
    expect(index.lookup('api.alpha.apps.test', anyone, Date.parse('2025-12-01T00:00:00Z'))?.serial).toBe('e1');
    const alone = indexOf(issued('alpha', 'api', ['api.alpha.apps.test'], 'e1', '2026-01-01T00:00:00Z'));
    expect(alone.index.lookup('api.alpha.apps.test', anyone, now)?.serial).toBe('e1');
  });

  it("never serves a namespace's certificate for a name the host admission does not let it serve", () => {
    // The tenant's status names a certificate for the victim's name (a status any writer could have set).
    const { index } = indexOf(issued('thief', 'stolen', ['www.victim.test'], 'bad', '2099-01-01T00:00:00Z'), issued('victim', 'www', ['www.victim.test'], 'good'));
    const mayServe: MayServe = (namespace, host) => namespace === 'victim' && host === 'www.victim.test';
    expect(index.lookup('www.victim.test', mayServe)).toMatchObject({ namespace: 'victim', serial: 'good' });
    // With only the thief's certificate, the name gets none at all.
    const alone = indexOf(issued('thief', 'stolen', ['www.victim.test'], 'bad'));
    expect(alone.index.lookup('www.victim.test', mayServe)).toBeUndefined();
  });

  it('asks the admission for the server name, not the wildcard', () => {
    const { index } = indexOf(issued('alpha', 'wild', ['*.shared.test'], 'w1'));
    const asked: string[] = [];
    index.lookup('a.shared.test', (namespace, host) => (asked.push(`${namespace} ${host}`), true));
    expect(asked).toEqual(['alpha a.shared.test']);
  });

  it('prefers the latest to expire among certificates of names the same namespace may serve', () => {
    const { index } = indexOf(issued('alpha', 'old', ['x.test'], '01', '2027-01-01T00:00:00Z'), issued('alpha', 'new', ['x.test'], '02', '2027-06-01T00:00:00Z'));
    expect(index.lookup('x.test', anyone)?.serial).toBe('02');
  });

  it('follows a new serial and its names, and forgets a certificate deleted or being deleted', () => {
    const { index, objects } = indexOf(issued('alpha', 'shop', ['a.test'], '01'));
    objects.set('alpha/shop', issued('alpha', 'shop', ['b.test'], '02'));
    expect(index.update('alpha/shop')).toEqual({ serving: expect.objectContaining({ serial: '02' }), replaced: expect.objectContaining({ serial: '01' }) });
    expect(index.lookup('a.test', anyone)).toBeUndefined();
    expect(index.lookup('b.test', anyone)?.serial).toBe('02');
    // The same serial again (a status write of something else) is no news.
    expect(index.update('alpha/shop')).toEqual({});
    objects.set('alpha/shop', { ...issued('alpha', 'shop', ['b.test'], '02'), metadata: { namespace: 'alpha', name: 'shop', deletionTimestamp: '2026-11-29T00:00:00Z' } });
    expect(index.update('alpha/shop')).toEqual({ replaced: expect.objectContaining({ serial: '02' }) });
    expect(index.lookup('b.test', anyone)).toBeUndefined();
    objects.delete('alpha/shop');
    expect(index.update('alpha/shop')).toEqual({});
    expect(index.size).toBe(0);
  });

  it('indexes nothing for a certificate not issued yet', () => {
    const { index } = indexOf(tlsCertificate('alpha', 'pending', ['p.test'], { state: 'Issuing', http01: [{ dnsName: 'p.test', token: 't', keyAuthorization: 't.k' }] }));
    expect(index.size).toBe(0);
    expect(index.lookup('p.test', anyone)).toBeUndefined();
  });
});
