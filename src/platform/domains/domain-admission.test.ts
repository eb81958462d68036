import { describe, expect, it } from 'vitest';
import { ancestorDomains, domainRefusal } from './domain-admission.ts';

const holders = new Map([
  ['shop.test', 'alpha'],
  ['beta.example', 'beta'],
]);
const context = { baseDomain: 'apps.example.com', holderOf: (name: string) => holders.get(name) };

describe('domainRefusal', () => {
  it('lists the ancestors that could be domains', () => {
    expect(ancestorDomains('a.b.shop.test')).toEqual(['b.shop.test', 'shop.test']);
    expect(ancestorDomains('shop.test')).toEqual([]);
  });

  it.each([
    ['apps.example.com', 'ReservedDomain'],
    ['p1.apps.example.com', 'ReservedDomain'],
    ['example.com', 'ReservedDomain'],
    ['sub.shop.test', 'UnderAnotherProject'],
    ['deep.sub.beta.example', 'UnderAnotherProject'],
  ])('refuses %s to project gamma (%s)', (domain, reason) => {
    expect(domainRefusal(domain, 'gamma', context)?.reason).toBe(reason);
  });

  it.each(['sub.shop.test', 'other.test', 'shop.test', 'example.org'])('lets the holder, or anyone for a free name, have %s', (domain) => {
    expect(domainRefusal(domain, 'alpha', context)).toBeUndefined();
  });

  it('names the domain it is under', () => {
    expect(domainRefusal('api.shop.test', 'beta', context)?.message).toBe('api.shop.test is under shop.test, a domain of another project; only that project can add names under it.');
  });
});
