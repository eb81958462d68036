import { describe, expect, it } from 'vitest';
import { nextCheckIn } from './recheck.ts';

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
