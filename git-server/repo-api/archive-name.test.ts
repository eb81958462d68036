import { describe, expect, it } from 'vitest';
import { archiveFileName, archiveTag, checkPrefix, contentDisposition, defaultPrefix, isFullObjectId, parseArchiveRef } from './archive-name.ts';

const SHA = 'c0ffee1234567890c0ffee1234567890c0ffee12';

describe('parseArchiveRef', () => {
  it.each([
    ['main.tar.gz', undefined, { revision: 'main', format: 'tar.gz' }],
    ['main.zip', undefined, { revision: 'main', format: 'zip' }],
    ['feature/x.zip', undefined, { revision: 'feature/x', format: 'zip' }],
    ['v1.0.tar.gz', undefined, { revision: 'v1.0', format: 'tar.gz' }],
    ['main~2.zip', undefined, { revision: 'main~2', format: 'zip' }],
    // With ?format=, a trailing .<format> is dropped and anything else is the revision.
    ['main', 'zip', { revision: 'main', format: 'zip' }],
    ['main.zip', 'zip', { revision: 'main', format: 'zip' }],
    ['x.zip', 'tar.gz', { revision: 'x.zip', format: 'tar.gz' }],
    ['x.zip.zip', undefined, { revision: 'x.zip', format: 'zip' }],
  ] as const)('%s (format %s)', (ref, format, expected) => {
    expect(parseArchiveRef(ref, format)).toEqual(expected);
  });

  it.each([
    ['main', undefined],
    ['.zip', undefined],
    ['main.tgz', undefined],
    ['main', 'rar'],
  ])('refuses %s (format %s) with a 400', (ref, format) => {
    expect(() => parseArchiveRef(ref, format)).toThrow(expect.objectContaining({ status: 400, code: 'invalid_request' }));
  });
});

describe('names', () => {
  it('unpacks under <repo>-<short sha>/ and downloads as <repo>-<short sha>.<format>', () => {
    expect(defaultPrefix('site', SHA)).toBe('site-c0ffee1/');
    expect(archiveFileName('site', SHA, 'tar.gz')).toBe('site-c0ffee1.tar.gz');
    expect(contentDisposition('site-c0ffee1.zip')).toBe('attachment; filename="site-c0ffee1.zip"');
    expect(contentDisposition('a"b;c.zip')).toBe('attachment; filename="a_b_c.zip"');
  });

  it('tags an archive by commit, format and prefix', () => {
    expect(archiveTag(SHA, 'zip', 'site/')).toMatch(new RegExp(`^${SHA}-zip-[0-9a-f]{16}$`));
    expect(new Set([archiveTag(SHA, 'zip', 'a/'), archiveTag(SHA, 'zip', 'b/'), archiveTag(SHA, 'tar.gz', 'a/'), archiveTag(SHA, 'zip', '')]).size).toBe(4);
  });

  it('takes a prefix verbatim unless it could escape or hide', () => {
    for (const ok of ['', 'site/', 'a/b/', 'name-']) expect(checkPrefix(ok)).toBe(ok);
    for (const bad of ['/abs/', '../up/', 'a/../b/', './', 'a\\b/', 'a\nb/', 'x'.repeat(201)]) expect(() => checkPrefix(bad)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('knows a full object id (SHA-1 or SHA-256) from anything that may move', () => {
    expect(isFullObjectId(SHA)).toBe(true);
    expect(isFullObjectId('a'.repeat(64))).toBe(true);
    expect(isFullObjectId(SHA.slice(0, 12))).toBe(false);
    expect(isFullObjectId('main')).toBe(false);
    expect(isFullObjectId(SHA.toUpperCase())).toBe(false);
  });
});
