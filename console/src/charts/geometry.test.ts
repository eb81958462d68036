import { describe, expect, it } from 'vitest';
import { linePath, lonePoints, niceMax, timeTicks, xOf, yOf, type Plot } from './geometry.ts';

const plot: Plot = { width: 110, height: 60, left: 10, right: 0, top: 0, bottom: 10, since: 0, until: 100, yMax: 10 };

describe('chart geometry', () => {
  it.each([
    [0, 1],
    [0.003, 0.005],
    [1, 1],
    [1.2, 2],
    [3, 5],
    [7, 10],
    [120, 200],
    [Number.NaN, 1],
  ])('rounds an axis top of %s up to %s', (max, nice) => {
    expect(niceMax(max)).toBeCloseTo(nice, 12);
  });

  it('maps time left to right and value bottom to top, clamping values above the axis', () => {
    expect([xOf(plot, 0), xOf(plot, 50), xOf(plot, 100)]).toEqual([10, 60, 110]);
    expect([yOf(plot, 0), yOf(plot, 5), yOf(plot, 10), yOf(plot, 99)]).toEqual([50, 25, 0, 0]);
  });

  it('breaks a line where a step has no value, and leaves a lone point to a dot', () => {
    expect(linePath(plot, [0, 25, 50, 100], [0, 10, null, 5])).toBe('M10.0 50.0L35.0 0.0');
    expect(lonePoints(plot, [0, 25, 50, 100], [0, 10, null, 5])).toEqual([{ x: 110, y: 25 }]);
    expect(linePath(plot, [0, 50], [null, null])).toBe('');
    expect(lonePoints(plot, [0, 50], [null, null])).toEqual([]);
  });

  it('puts time ticks on round times: 15 minutes over an hour, 4 hours over a day', () => {
    const since = Date.parse('2026-11-29T14:07:00Z');
    expect(timeTicks(since, since + 3_600_000).map((t) => new Date(t).toISOString().slice(11, 16))).toEqual(['14:15', '14:30', '14:45', '15:00']);
    expect(timeTicks(since, since + 86_400_000).map((t) => new Date(t).toISOString().slice(11, 16))).toEqual(['16:00', '20:00', '00:00', '04:00', '08:00', '12:00']);
  });
});
