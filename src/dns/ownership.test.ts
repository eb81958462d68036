import { describe, expect, it } from 'vitest';
import { assertOwnerId, ownershipName, ownershipRecord, parseOwnershipName, parseOwnershipText, ownershipText } from './ownership.ts';

describe('ownership marks', () => {
  it.each([
    ['www.example.com', 'CNAME', '_cw-cname.www.example.com'],
    ['example.com', 'A', '_cw-a.example.com'],
    ['*.preview.example.com', 'AAAA', '_cw-aaaa-wildcard.preview.example.com'],
    ['*.example.com', 'TXT', '_cw-txt-wildcard.example.com'],
    ['_sip._tcp.example.com', 'SRV', '_cw-srv._sip._tcp.example.com'],
  ])('marks %s %s at %s, and reads it back', (name, type, mark) => {
    expect(ownershipName(name, type)).toBe(mark);
    expect(parseOwnershipName(mark)).toEqual({ name, type });
  });

  it.each(['www.example.com', '_cw.example.com', '_cw-.example.com', '_cw-a', '_cw-A.example.com', 'x._cw-a.example.com'])('does not take %s for a mark', (name) => {
    expect(parseOwnershipName(name)).toBeUndefined();
  });

  it('writes and reads the owner in the text', () => {
    expect(ownershipText('prod-eu')).toBe('heritage=cloudwright,cloudwright/owner=prod-eu');
    expect(parseOwnershipText(ownershipText('prod-eu'))).toBe('prod-eu');
    expect(parseOwnershipText('heritage=external-dns,external-dns/owner=default')).toBeUndefined();
    expect(parseOwnershipText('heritage=cloudwright')).toBeUndefined();
    expect(ownershipRecord('www.example.com', 'A', 'cw')).toEqual({
      name: '_cw-a.www.example.com',
      type: 'TXT',
      ttl: 300,
      values: ['heritage=cloudwright,cloudwright/owner=cw'],
    });
  });

  it('refuses owner ids that would not survive the round trip', () => {
    expect(() => assertOwnerId('cloudwright')).not.toThrow();
    for (const bad of ['', 'Upper', 'has space', 'comma,here', '-leading', 'x'.repeat(64)]) expect(() => assertOwnerId(bad), bad).toThrow();
  });
});
