import { describe, expect, it } from 'vitest';
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { compareDelegation } from '../../dns/delegation.ts';
import { delegationLapsed } from './delegation-lapse.ts';
import { domainStatus } from './domain-status.ts';

const now = new Date('2026-01-01T12:00:00Z');
const at = (hours: number) => new Date(now.getTime() + hours * 3_600_000);
const zone = { zoneId: 'Z123', nameservers: ['ns-1.example.net', 'ns-2.example.org'] };
const fresh: ProjectDomain = { metadata: { name: 'shop-test-abc', namespace: 'p', generation: 1 }, spec: { domain: 'shop.test' } };
const next = (d: ProjectDomain, seen: Parameters<typeof domainStatus>[1], when: Date): ProjectDomain => ({ ...d, status: domainStatus(d, seen, when) });
const managed = next(next(fresh, { zone }, now), { zone, delegation: compareDelegation('shop.test', zone.nameservers, zone.nameservers) }, now);
const elsewhere = compareDelegation('shop.test', ['ns-9.example.com'], zone.nameservers);
const nothing = compareDelegation('shop.test', [], zone.nameservers);
const timeout = { delegated: false, found: [], expected: zone.nameservers, reason: 'Timeout' as const, message: 'did not answer; the check can be repeated later.' };

describe('delegationLapsed', () => {
  it('is true once the parent zone has delegated the name elsewhere for the whole demotion grace, not before', () => {
    const lost = next(managed, { zone, delegation: elsewhere }, at(1));
    expect(delegationLapsed(lost, at(24))).toBe(false);
    // Checked again meanwhile: still not delegated, the time counts from the first such verdict.
    const again = next(lost, { zone, delegation: elsewhere }, at(20));
    expect(delegationLapsed(again, at(25))).toBe(true);
  });

  it('is false for a domain delegated now, never delegated, or one whose checks only went unanswered', () => {
    expect(delegationLapsed(managed, at(100))).toBe(false);
    const never = next(next(fresh, { zone }, now), { zone, delegation: elsewhere }, now);
    expect(delegationLapsed(never, at(100))).toBe(false);
    const unanswered = next(next(managed, { zone, delegation: timeout }, at(1)), { zone, delegation: timeout }, at(26));
    expect(unanswered.status?.state).toBe('pending_delegation'); // Unverifiable: not delegated for serving, yet proves no other owner
    expect(delegationLapsed(unanswered, at(100))).toBe(false);
  });

  it('is false again once it is found delegated, however long it had lapsed', () => {
    const lost = next(managed, { zone, delegation: elsewhere }, at(1));
    const back = next(lost, { zone, delegation: compareDelegation('shop.test', zone.nameservers, zone.nameservers) }, at(30));
    expect(delegationLapsed(back, at(100))).toBe(false);
  });

  it('does not count unanswered checks after one definite answer as a lapse; the next definite answer does (review-171 F2)', () => {
    let d = next(managed, { zone, delegation: nothing }, at(1));
    for (let h = 2; h <= 25; h++) d = next(d, { zone, delegation: timeout }, at(h));
    expect(delegationLapsed(d, at(25))).toBe(false);
    // Definite answers now span the day: unanswered checks neither started nor stopped the clock.
    d = next(d, { zone, delegation: elsewhere }, at(26));
    expect(d.status?.notDelegatedSince).toBe('2026-01-01T13:00:00Z');
    expect(delegationLapsed(d, at(26))).toBe(true);
  });

  it('starts the day at the first definite answer after a long outage, not at the outage (review-171 F2)', () => {
    let d = managed;
    for (let h = 1; h <= 50; h++) d = next(d, { zone, delegation: timeout }, at(h));
    expect(d.status?.conditions?.find((c) => c.type === 'Delegated')?.reason).toBe('Unverifiable');
    d = next(d, { zone, delegation: elsewhere }, at(50.1));
    expect(delegationLapsed(d, at(50.1))).toBe(false);
    expect(delegationLapsed(d, at(74))).toBe(false);
    d = next(d, { zone, delegation: elsewhere }, at(74.1));
    expect(delegationLapsed(d, at(74.1))).toBe(true);
  });

  it('starts the day again after a delegated answer (review-171 F2)', () => {
    const lost = next(managed, { zone, delegation: elsewhere }, at(1));
    const back = next(lost, { zone, delegation: compareDelegation('shop.test', zone.nameservers, zone.nameservers) }, at(10));
    expect(back.status?.notDelegatedSince).toBeUndefined();
    const again = next(back, { zone, delegation: elsewhere }, at(20));
    expect(delegationLapsed(again, at(30))).toBe(false);
    expect(delegationLapsed(next(again, { zone, delegation: nothing }, at(44)), at(44))).toBe(true);
  });
});
