import { describe, expect, it } from 'vitest';
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { API_ZONE_GRACE_MS, apiZoneGraceLeft, ZONE_CREATOR_ANNOTATION } from './domain-reconciler.ts';

const created = '2026-01-01T12:00:00Z';
const domain = (annotated: boolean, zone?: string): ProjectDomain => ({
  metadata: { creationTimestamp: created, ...(annotated ? { annotations: { [ZONE_CREATOR_ANNOTATION]: 'api' } } : {}) },
  spec: { domain: 'shop.test' },
  ...(zone ? { status: { hostedZoneId: zone } } : {}),
});

describe('apiZoneGraceLeft', () => {
  const at = (seconds: number) => new Date(Date.parse(created) + seconds * 1000);
  it('leaves a zone the API is creating to the API for a while, then takes over', () => {
    expect(apiZoneGraceLeft(domain(true), at(10))).toBe(API_ZONE_GRACE_MS - 10_000);
    expect(apiZoneGraceLeft(domain(true), at(API_ZONE_GRACE_MS / 1000 + 1))).toBe(0);
  });
  it('does not wait for objects applied with kubectl, nor once the zone is known', () => {
    expect(apiZoneGraceLeft(domain(false), at(1))).toBe(0);
    expect(apiZoneGraceLeft(domain(true, 'Z1'), at(1))).toBe(0);
  });
});
