import { describe, expect, it } from 'vitest';
import { compareResourceVersions } from './resource-version.ts';

describe('compareResourceVersions', () => {
  it.each([
    ['9', '10', -1],
    ['10', '9', 1],
    ['123', '123', 0],
    ['120', '123', -1],
    [undefined, '1', -1],
    ['01', '1', -1],
    ['x', 'y', 0],
  ] as const)('orders %s against %s', (a, b, sign) => {
    expect(Math.sign(compareResourceVersions(a, b))).toBe(sign);
  });
});
