import { describe, expect, it } from 'vitest';
import { metricsSpan } from './metrics-span.ts';

const NOW = Date.parse('2026-11-29T15:07:30Z');
const MIN = 60_000;

describe('metricsSpan', () => {
  it('defaults to the last hour at one-minute steps, from the minute boundary', () => {
    expect(metricsSpan({}, NOW)).toEqual({ since: Date.parse('2026-11-29T14:07:00Z'), until: NOW, stepMs: MIN });
  });

  it('picks the smallest step giving at most 120 points, or the one asked for', () => {
    expect(metricsSpan({ since: '6h' }, NOW).stepMs).toBe(5 * MIN);
    expect(metricsSpan({ since: '24h' }, NOW)).toEqual({ since: Date.parse('2026-11-28T15:00:00Z'), until: NOW, stepMs: 15 * MIN });
    expect(metricsSpan({ since: '2h' }, NOW).stepMs).toBe(MIN);
    expect(metricsSpan({ since: '1h', step: '15m' }, NOW)).toEqual({ since: Date.parse('2026-11-29T14:00:00Z'), until: NOW, stepMs: 15 * MIN });
  });

  it('takes an RFC 3339 time within the last day', () => {
    expect(metricsSpan({ since: '2026-11-29T16:00:00+02:00' }, NOW).since).toBe(Date.parse('2026-11-29T14:00:00Z'));
  });

  it('refuses anything else, naming the parameter', () => {
    for (const since of ['25h', '1441m', '0m', '1d', '90s', 'yesterday', '2026-11-27T15:00:00Z', '2026-11-30T15:00:00Z', '2026-11-29']) {
      expect(() => metricsSpan({ since }, NOW), since).toThrow(/^since /);
    }
    expect(() => metricsSpan({ step: '2m' }, NOW)).toThrow(/^step must be one of 1m, 5m, 15m, 1h/);
  });
});
