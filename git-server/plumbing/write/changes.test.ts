import { describe, expect, it } from 'vitest';
import { checkChanges, decodedLength, decodeContent, gitDate } from './changes.ts';

describe('gitDate', () => {
  it.each([
    ['2024-05-01T12:00:00+02:00', '1714557600 +0200'],
    ['2024-05-01T10:00:00Z', '1714557600 +0000'],
    ['2024-05-01T10:00:00.999z', '1714557600 +0000'],
    ['2024-05-01T04:30:00-05:30', '1714557600 -0530'],
  ])('%s → %s', (when, git) => expect(gitDate(when)).toBe(git));

  it.each(['2024-05-01T10:00:00', '2024-05-01 10:00:00Z', 'yesterday', '2024-13-01T10:00:00Z'])('refuses %j', (when) => expect(() => gitDate(when)).toThrow(/RFC 3339/));
});

describe('decodedLength', () => {
  it.each(['', 'a', 'ab', 'abc', 'abcd', 'x'.repeat(1000)])('matches the decoded size of %j', (text) => {
    const b64 = Buffer.from(text).toString('base64');
    expect(decodedLength(b64)).toBe(text.length);
    expect(decodeContent('p', b64).toString()).toBe(text);
  });

  it('refuses unpadded, URL-safe or spaced base64', () => {
    for (const bad of ['YQ', 'a-_b', 'YW Jj', 'YWJj\n', 'Y===', 'YQ==YQ==', '=AAA']) expect(() => decodeContent('p', bad)).toThrow(/base64/);
  });

  it('decodes 16 MiB, the most a commit carries, without overflowing the stack', () => {
    const bytes = Buffer.alloc(16 << 20, 7);
    expect(decodeContent('p', bytes.toString('base64')).equals(bytes)).toBe(true);
  });
});

describe('checkChanges', () => {
  const del = (path: string) => ({ op: 'delete', path }) as const;
  it('accepts siblings whose names share a prefix', () => {
    expect(() => checkChanges([del('a'), del('a.txt'), del('a-b/c'), del('ab')])).not.toThrow();
  });
  it('finds an overlap past siblings that sort between', () => {
    expect(() => checkChanges([del('a/b'), del('a.txt'), del('a')])).toThrow(/"a" and "a\/b" overlap/);
  });
  it('refuses a .gitmodules symbolic link', () => {
    expect(() => checkChanges([{ op: 'upsert', path: 'x/.gitmodules', content: '', mode: '120000' }])).toThrow(/symbolic link/);
  });
});
