import { describe, expect, it } from 'vitest';
import { restoreRequestTime } from './database.ts';

describe('restoreRequestTime', () => {
  it.each<[string, number | undefined]>([
    ['2030-01-01T00:01:00Z', Date.parse('2030-01-01T00:01:00Z')],
    ['2030-01-01T00:01:00.250Z#a1b2', Date.parse('2030-01-01T00:01:00.250Z')],
    ['2030-01-01T02:01:00+02:00#again', Date.parse('2030-01-01T00:01:00Z')],
    ['yesterday', undefined],
    ['1700000000000', undefined],
    ['2030-13-45T00:00:00Z', undefined],
    ['', undefined],
  ])('reads %j as %s', (request, expected) => {
    expect(restoreRequestTime(request)).toBe(expected);
  });
});
