import { describe, expect, it } from 'vitest';
import { checkDomainName, DOMAIN_MAX_LENGTH, InvalidDomainNameError, isPublicSuffix, parseDomainName } from './domain-name.ts';

describe('checkDomainName', () => {
  it.each([
    ['example.com', 'example.com'],
    ['  Example.COM.  ', 'example.com'],
    ['shop.example.co.uk', 'shop.example.co.uk'],
    ['example.co.uk', 'example.co.uk'],
    ['my-site.github.io', 'my-site.github.io'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['a1.test', 'a1.test'],
    ['123.example.com', '123.example.com'],
  ])('accepts %j as %j', (input, domain) => {
    expect(checkDomainName(input)).toEqual({ ok: true, domain });
  });

  it.each([
    ['', 'Empty', 'domain is required'],
    ['.', 'Empty', 'domain is required'],
    ['com', 'SingleLabel', 'is a top-level domain'],
    ['co.uk', 'PublicSuffix', 'is a public suffix; add a domain registered under it, for example example.co.uk'],
    ['github.io', 'PublicSuffix', 'public suffix'],
    ['GitHub.IO.', 'PublicSuffix', 'public suffix'],
    ['192.0.2.1', 'IpAddress', 'is an IP address'],
    ['2001:db8::1', 'IpAddress', 'is an IP address'],
    ['[2001:db8::1]', 'IpAddress', 'is an IP address'],
    ['1.2.3.4.5', 'NumericTopLevel', 'numeric top-level'],
    ['exa_mple.com', 'InvalidLabel', 'invalid label "exa_mple"'],
    ['-example.com', 'InvalidLabel', 'invalid label "-example"'],
    ['example-.com', 'InvalidLabel', 'invalid label'],
    ['example..com', 'InvalidLabel', 'empty label'],
    ['*.example.com', 'InvalidLabel', 'invalid label "*"'],
    ['example.com/path', 'InvalidLabel', 'invalid label'],
    [`${'a'.repeat(64)}.com`, 'InvalidLabel', 'longer than 63'],
    [`${'abcdefghij.'.repeat(19)}com`, 'TooLong', `at most ${DOMAIN_MAX_LENGTH}`],
    ['localhost', 'Reserved', 'reserved name localhost'],
    ['printer.local', 'Reserved', 'reserved name local'],
    ['2.0.192.in-addr.arpa', 'Reserved', 'reserved name arpa'],
    ['corp.internal', 'Reserved', 'reserved'],
    ['exa\u0000mple.com', 'InvalidLabel', 'not a valid domain name'],
  ])('refuses %j (%s)', (input, problem, message) => {
    const check = checkDomainName(input);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.problem).toBe(problem);
    expect(check.message).toContain(message);
  });

  it('knows a handful of public suffixes, and every single label is one', () => {
    for (const suffix of ['co.uk', 'com.au', 'co.jp', 'github.io', 'vercel.app', 'pages.dev', 'io', 'dev']) {
      expect(isPublicSuffix(suffix), suffix).toBe(true);
    }
    expect(isPublicSuffix('example.com')).toBe(false);
  });

  it('parseDomainName throws a 400 PublicError naming the problem', () => {
    expect(parseDomainName('Example.com.')).toBe('example.com');
    const err = (() => {
      try {
        parseDomainName('co.uk');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(InvalidDomainNameError);
    expect(err).toMatchObject({ status: 400, problem: 'PublicSuffix' });
  });
});
