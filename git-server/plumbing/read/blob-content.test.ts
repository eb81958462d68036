import { describe, expect, it } from 'vitest';
import { decodeText, parseLfsPointer, pickReadme } from './blob-content.ts';

describe('decodeText', () => {
  it('decodes UTF-8 and calls NULs or invalid UTF-8 binary', () => {
    expect(decodeText(Buffer.from('héllo\n'))).toBe('héllo\n');
    expect(decodeText(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]))).toBeUndefined();
    expect(decodeText(Buffer.from([0x66, 0xff, 0x66]))).toBeUndefined();
    expect(decodeText(Buffer.alloc(0))).toBe('');
  });
});

describe('parseLfsPointer', () => {
  const oid = 'a'.repeat(64);
  it('reads a spec v1 pointer', () => {
    expect(parseLfsPointer(`version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize 12345\n`)).toEqual({ oid, size: 12345 });
    expect(parseLfsPointer(`version https://git-lfs.github.com/spec/v1\next-0-foo sha256:${'b'.repeat(64)}\noid sha256:${oid}\nsize 1\n`)).toEqual({ oid, size: 1 });
  });
  it('refuses anything else', () => {
    expect(parseLfsPointer(`oid sha256:${oid}\nsize 1\n`)).toBeUndefined();
    expect(parseLfsPointer(`version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize 1`)).toBeUndefined();
    expect(parseLfsPointer(`version https://git-lfs.github.com/spec/v1\noid sha256:xyz\nsize 1\n`)).toBeUndefined();
  });
});

describe('pickReadme', () => {
  it('prefers README.md, any case', () => {
    expect(pickReadme(['a.js', 'README', 'readme.md'])).toBe('readme.md');
    expect(pickReadme(['README.txt', 'Readme'])).toBe('Readme');
    expect(pickReadme(['READMEs', 'x'])).toBeUndefined();
  });
});
