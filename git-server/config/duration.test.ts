import { describe, expect, it } from 'vitest';
import { FieldError } from './config-error.ts';
import { parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['0s', 0],
    ['250ms', 250],
    ['20s', 20_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    ['2d', 172_800_000],
    [' 10s ', 10_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '20', '20x', 's', '-5s', '5 s', '1h 30m', '1e3s', 'PT5S'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(FieldError);
  });

  it('refuses durations a timer cannot hold', () => {
    expect(() => parseDuration('25d')).toThrow(/longest supported duration/);
    expect(parseDuration('24d')).toBe(24 * 86_400_000);
  });
});
