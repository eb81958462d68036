import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { stepsOption } from './rollout.ts';

describe('--steps', () => {
  it('reads WEIGHT[:PAUSE] steps, a pause being a duration or manual', () => {
    expect(stepsOption('10:30s, 50:manual,100')).toStrictEqual([{ weight: 10, pause: '30s' }, { weight: 50, pause: 'manual' }, { weight: 100 }]);
    expect(stepsOption('0:1h30m')).toStrictEqual([{ weight: 0, pause: '1h30m' }]);
  });

  it.each([
    ['101', /step 1 \("101"\): expected WEIGHT\[:PAUSE\], a weight from 0 to 100/],
    ['ten', /step 1 \("ten"\)/],
    ['10:30s:x', /step 1 \("10:30s:x"\)/],
    ['10,20:30 seconds', /step 2 \("20:30 seconds"\): the pause is a duration such as 30s, 5m or 1h30m, or manual/],
    ['10:s', /the pause is a duration/],
  ])('refuses %j naming the step', (value, message) => {
    expect(() => stepsOption(value)).toThrow(InvalidArgumentError);
    expect(() => stepsOption(value)).toThrow(message);
  });
});
