import { describe, expect, it } from 'vitest';
import { lastThird, renewalInfoRecheck, renewalTime } from './renewal.ts';

describe('renewal', () => {
  const notBefore = new Date('2026-01-01T00:00:00Z');
  const notAfter = new Date('2026-03-31T00:00:00Z'); // 89 days

  it('renews in the last third of the lifetime, ending a ninth before expiry', () => {
    const { start, end } = lastThird(notBefore, notAfter);
    const lifetime = notAfter.getTime() - notBefore.getTime();
    expect(notAfter.getTime() - start.getTime()).toBeCloseTo(lifetime / 3, -3);
    expect(notAfter.getTime() - end.getTime()).toBeCloseTo(lifetime / 9, -3);
  });

  it('picks a moment in the window, from now on when the window has begun, now when it is past', () => {
    const window = { start: new Date('2026-03-01T00:00:00Z'), end: new Date('2026-03-03T00:00:00Z') };
    expect(renewalTime(window, new Date('2026-02-01T00:00:00Z'), () => 0)).toEqual(window.start);
    expect(renewalTime(window, new Date('2026-02-01T00:00:00Z'), () => 0.5)).toEqual(new Date('2026-03-02T00:00:00Z'));
    expect(renewalTime(window, new Date('2026-03-02T00:00:00Z'), () => 0)).toEqual(new Date('2026-03-02T00:00:00Z'));
    const late = new Date('2026-03-05T00:00:00Z');
    expect(renewalTime(window, late, () => 0.9)).toEqual(late);
  });

  it('asks the renewal information again after 6 hours, or as the CA says within 1 minute and a day', () => {
    const now = new Date('2026-03-01T00:00:00Z');
    expect(renewalInfoRecheck(now, undefined).getTime() - now.getTime()).toBe(6 * 3600_000);
    expect(renewalInfoRecheck(now, 5).getTime() - now.getTime()).toBe(60_000);
    expect(renewalInfoRecheck(now, 3600).getTime() - now.getTime()).toBe(3600_000);
    expect(renewalInfoRecheck(now, 10 * 86400).getTime() - now.getTime()).toBe(86400_000);
  });
});
