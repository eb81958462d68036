import { describe, expect, it } from 'vitest';
import { checkUrlPattern, parseSourceUrl, SourcePatterns } from './source-url.ts';

describe('parseSourceUrl', () => {
  it('answers the canonical https URL', () => {
    expect(parseSourceUrl('https://GitHub.com/acme/site.git/').href).toBe('https://github.com/acme/site.git');
    expect(parseSourceUrl('https://git.example.com:8443/a/b').host).toBe('git.example.com:8443');
  });

  it.each([
    ['http://github.com/acme/site.git', 'source.url must be an https:// URL, not http://.'],
    ['ssh://git@github.com/acme/site.git', 'source.url must be an https:// URL, not ssh://.'],
    ['file:///etc/passwd', 'source.url must be an https:// URL, not file://.'],
    ['https://user:hunter2@github.com/acme/site.git', 'source.url must not contain credentials: send them in the request’s `credentials`.'],
    ['https://github.com/acme/site.git?x=1', 'source.url must not have a query or a fragment.'],
    ['https://github.com/', 'source.url names no repository (expected https://host/path.git).'],
    ['https://github.com/acme/x%2F..%2Fother.git', 'source.url must not have an encoded slash or backslash (%2F, %5C) in its path.'],
    ['https://github.com/acme/x%5c..%5Cother.git', 'source.url must not have an encoded slash or backslash (%2F, %5C) in its path.'],
    ['not a url', 'source.url is not a URL (expected https://host/path.git).'],
  ])('refuses %s', (url, message) => {
    expect(() => parseSourceUrl(url)).toThrow(message);
  });

  it('never repeats a password it refuses', () => {
    expect(() => parseSourceUrl('https://u:s3cret@h/x')).toThrow(expect.objectContaining({ message: expect.not.stringContaining('s3cret') }));
  });
});

describe('SourcePatterns', () => {
  const admits = (patterns: string[], url: string) => new SourcePatterns(patterns).admits(parseSourceUrl(url));

  it('admits by host, with or without a path glob', () => {
    expect(admits(['https://github.com'], 'https://github.com/acme/site.git')).toBe(true);
    expect(admits(['https://github.com/acme/*'], 'https://github.com/acme/site.git')).toBe(true);
    expect(admits(['https://github.com/acme/*'], 'https://github.com/other/site.git')).toBe(false);
    expect(admits(['https://github.com/acme/*'], 'https://github.com/acme/a/b.git')).toBe(false);
    expect(admits(['https://gitlab.com/acme/**'], 'https://gitlab.com/acme/group/sub/site.git')).toBe(true);
    expect(admits(['https://*.example.com'], 'https://git.example.com/x.git')).toBe(true);
    expect(admits(['https://*.example.com'], 'https://example.com.evil.net/x.git')).toBe(false);
    expect(admits(['https://*'], 'https://anything.example/x.git')).toBe(true);
    expect(admits(['https://git.example.com:8443'], 'https://git.example.com:8443/x')).toBe(true);
    expect(admits(['https://git.example.com'], 'https://git.example.com:8443/x')).toBe(false);
    expect(admits(['https://git.example.com:443'], 'https://git.example.com/x')).toBe(true);
  });

  it('ignores the same-bucket entries and is empty without URL patterns', () => {
    expect(new SourcePatterns(['acme/site']).empty).toBe(true);
    expect(admits(['acme/site'], 'https://github.com/acme/site')).toBe(false);
  });

  it('refuses what is not a pattern', () => {
    expect(() => checkUrlPattern('https://')).toThrow('is not an import source pattern');
    expect(() => checkUrlPattern('https://u:p@host')).toThrow('is not an import source pattern');
    expect(checkUrlPattern('https://*')).toBe('https://*');
  });
});
