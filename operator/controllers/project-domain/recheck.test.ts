import { describe, expect, it } from 'vitest';
import { DELEGATION_CHECK_ANNOTATION, type ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import { delegationRequest, nextCheckIn, nextPendingCheckIn } from './recheck.ts';

describe('nextCheckIn', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  it('is due at once for a domain never checked, or with an unreadable or future check time', () => {
    expect(nextCheckIn(undefined, 60_000, now)).toBe(0);
    expect(nextCheckIn('yesterday', 60_000, now)).toBe(0);
    expect(nextCheckIn('2026-01-01T13:00:00Z', 60_000, now)).toBe(0);
  });
  it('waits out the rest of the interval, and is due once it has passed', () => {
    expect(nextCheckIn('2026-01-01T11:59:30Z', 60_000, now)).toBe(30_000);
    expect(nextCheckIn('2026-01-01T11:59:00Z', 60_000, now)).toBe(0);
    expect(nextCheckIn('2026-01-01T11:00:00Z', 60_000, now)).toBe(0);
  });
});

describe('nextPendingCheckIn', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const MIN = 60_000;
  const HOUR = 3_600_000;
  const pending = (created: string, lastCheckedAt?: string, delegatedFalseSince?: string): ProjectDomain => ({
    metadata: { creationTimestamp: created },
    spec: { domain: 'shop.test' },
    status: {
      ...(lastCheckedAt ? { lastCheckedAt } : {}),
      ...(delegatedFalseSince ? { conditions: [{ type: 'Delegated', status: 'False', reason: 'NotDelegated', message: '', lastTransitionTime: delegatedFalseSince }] } : {}),
    },
  });

  it('checks every minute while the domain is young, then a tenth of the time it has been pending, up to the maximum', () => {
    expect(nextPendingCheckIn(pending('2026-01-01T11:58:00Z', '2026-01-01T11:59:30Z'), MIN, HOUR, now)).toBe(30_000);
    // Pending 5 hours: every 30 minutes.
    expect(nextPendingCheckIn(pending('2026-01-01T07:00:00Z', '2026-01-01T11:50:00Z'), MIN, HOUR, now)).toBe(20 * 60_000);
    // Pending for days: hourly.
    expect(nextPendingCheckIn(pending('2025-12-20T12:00:00Z', '2026-01-01T11:30:00Z'), MIN, HOUR, now)).toBe(30 * 60_000);
  });

  it('is due at once when never checked, and counts from when the delegation was lost, not from creation', () => {
    expect(nextPendingCheckIn(pending('2025-12-01T00:00:00Z'), MIN, HOUR, now)).toBe(0);
    // Created a month ago, demoted two minutes ago: back to checking every minute.
    expect(nextPendingCheckIn(pending('2025-12-01T00:00:00Z', '2026-01-01T11:59:30Z', '2026-01-01T11:58:00Z'), MIN, HOUR, now)).toBe(30_000);
  });
});

describe('delegationRequest', () => {
  const domain = (asked: string | undefined, handled: string | undefined): ProjectDomain => ({
    metadata: asked === undefined ? {} : { annotations: { [DELEGATION_CHECK_ANNOTATION]: asked } },
    spec: { domain: 'shop.test' },
    status: handled === undefined ? {} : { lastHandledDelegationCheck: handled },
  });

  it('is the annotation until the status echoes it', () => {
    expect(delegationRequest(domain(undefined, undefined))).toBeUndefined();
    expect(delegationRequest(domain('r-1', undefined))).toBe('r-1');
    expect(delegationRequest(domain('r-1', 'r-1'))).toBeUndefined();
    expect(delegationRequest(domain('r-2', 'r-1'))).toBe('r-2');
  });

  it('cuts a long value to what the status holds, so it can be echoed and matched', () => {
    const long = 'x'.repeat(100);
    expect(delegationRequest(domain(long, undefined))).toBe('x'.repeat(64));
    expect(delegationRequest(domain(long, 'x'.repeat(64)))).toBeUndefined();
  });
});
