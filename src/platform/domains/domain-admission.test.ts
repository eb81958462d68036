import { describe, expect, it } from 'vitest';
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { ancestorDomains, domainRefusal, holdsName, type Overlap, type OverlapBelow } from './domain-admission.ts';

const firmOlder = { firm: true, older: true };
const holders = new Map<string, Overlap>([
  ['shop.test', { project: 'alpha', ...firmOlder }],
  ['beta.example', { project: 'beta', ...firmOlder }],
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

describe('domainRefusal between a parent and a domain inside it', () => {
  const dev = (overlap: Overlap): OverlapBelow[] => [{ domain: 'dev.acme.test', ...overlap }];
  const base = { baseDomain: 'apps.example.com', holderOf: () => undefined };

  it('refuses a parent being added while another project holds a domain inside it firmly, naming that domain', () => {
    const refusal = domainRefusal('acme.test', 'alpha', { ...base, below: dev({ project: 'beta', ...firmOlder }) });
    expect(refusal).toEqual({
      reason: 'DomainTaken',
      message: "acme.test contains dev.acme.test, a domain of another project; a domain cannot take in another project's domain, so acme.test can be added once dev.acme.test is deleted there.",
    });
  });

  it('lets the parent in beside a domain inside it that never proved its delegation, and over its own', () => {
    expect(domainRefusal('acme.test', 'alpha', { ...base, below: dev({ project: 'beta', firm: false, older: true }) })).toBeUndefined();
    expect(domainRefusal('acme.test', 'alpha', { ...base, below: dev({ project: 'alpha', ...firmOlder }) })).toBeUndefined();
  });

  it.each([
    // [parent firm, child firm, child older] → which one is refused: the one that did not prove its delegation, or
    // of two that did, the younger; of two that did not, neither (found in review: a squatter's pending parent or
    // child kept the owner out, renewed for good by deleting and adding it again).
    [false, false, false, 'neither'],
    [false, false, true, 'neither'],
    [true, false, true, 'child'],
    [true, false, false, 'child'],
    [false, true, false, 'parent'],
    [false, true, true, 'parent'],
    [true, true, true, 'parent'],
    [true, true, false, 'child'],
  ])('decides for at most one of the two (parent firm %s, child firm %s, child older %s): the %s', (parentFirm, childFirm, childOlder, loser) => {
    const parent = domainRefusal('acme.test', 'alpha', { ...base, firm: parentFirm, below: dev({ project: 'beta', firm: childFirm, older: childOlder }) });
    const child = domainRefusal('dev.acme.test', 'beta', {
      ...base,
      firm: childFirm,
      holderOf: (name) => (name === 'acme.test' ? { project: 'alpha', firm: parentFirm, older: !childOlder } : undefined),
    });
    const expected = { parent: ['DomainTaken', undefined], child: [undefined, 'UnderAnotherProject'], neither: [undefined, undefined] }[loser as 'parent' | 'child' | 'neither'];
    expect([parent?.reason, child?.reason]).toEqual(expected);
  });
});

describe('holdsName', () => {
  const domain = (reason?: string, spec: Partial<ProjectDomain['spec']> = {}): ProjectDomain => ({
    metadata: { name: 'd' },
    spec: { domain: 'shop.test', ...spec },
    ...(reason ? { status: { conditions: [{ type: 'Ready', status: 'False', reason, message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } } : {}),
  });

  it.each(['DomainTaken', 'UnderAnotherProject', 'ReservedDomain', 'TooManyDomains', 'InvalidDomain'])('is false for a domain refused its name (%s)', (reason) => {
    expect(holdsName(domain(reason))).toBe(false);
  });

  it('is true for a new domain and one pending or managed, false once deleted', () => {
    expect(holdsName(domain())).toBe(true);
    expect(holdsName(domain('PendingDelegation'))).toBe(true);
    expect(holdsName(domain('Managed'))).toBe(true);
    expect(holdsName(domain(undefined, { deleted: true }))).toBe(false);
  });
});
