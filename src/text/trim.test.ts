import { describe, expect, it } from 'vitest';
import { trimBoth, trimTrailing } from './trim.ts';
import { cpuTimeMs } from '../testing/cpu-time.ts';

describe('trimTrailing and trimBoth', () => {
  it('take the runs of one character off the ends, and nothing else', () => {
    expect(trimTrailing('a//b///', '/')).toBe('a//b');
    expect(trimTrailing('///', '/')).toBe('');
    expect(trimTrailing('abc', '/')).toBe('abc');
    expect(trimBoth('//a/b//', '/')).toBe('a/b');
    expect(trimBoth('', '/')).toBe('');
  });

  it('take linear time on a long run followed by something else (a regex took seconds)', () => {
    const text = `a${'/'.repeat(1_000_000)}x`;
    const ms = cpuTimeMs(() => {
      expect(trimTrailing(text, '/')).toBe(text);
      expect(trimBoth(text, '/')).toBe(text);
    });
    expect(ms).toBeLessThan(200);
  });
});
