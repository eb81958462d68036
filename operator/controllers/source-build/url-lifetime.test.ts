import { describe, expect, it } from 'vitest';
import { urlLifetimeSeconds } from './url-lifetime.ts';

describe('urlLifetimeSeconds', () => {
  it('outlives the deadline, so a long build can still upload its output', () => {
    expect(urlLifetimeSeconds({ deadlineSeconds: 6 * 3600 })).toBeGreaterThan(6 * 3600);
    expect(urlLifetimeSeconds({ deadlineSeconds: 15 * 60 })).toBe(30 * 60);
  });

  it('never asks S3 for more than 7 days', () => {
    expect(urlLifetimeSeconds({ deadlineSeconds: 30 * 24 * 3600 })).toBe(7 * 24 * 3600);
  });
});
