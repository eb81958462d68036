import { describe, expect, it } from 'vitest';
import { buildLogText } from './builds.ts';

describe('buildLogText', () => {
  const hostile = 'npm run build\r\n\u001b]0;pwned\u0007\u001b[2Kdone\n';

  it('shows a build’s control characters as text on a terminal (review-162 F5)', () => {
    expect(buildLogText(hostile, true)).toBe('npm run build\n\\x1b]0;pwned\\x07\\x1b[2Kdone\n');
  });

  it('writes the log as it is when piped', () => {
    expect(buildLogText(hostile, false)).toBe(hostile);
  });
});
