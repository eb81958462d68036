import { describe, expect, it } from 'vitest';
import { scopeSetCookie } from './cookie-scope.ts';

describe('scopeSetCookie', () => {
  const host = 'app.proj.apps.test';
  it('keeps a cookie with no domain, or the host’s own, or its project’s', () => {
    expect(scopeSetCookie('a=1; Path=/', host, 'apps.test')).toBe('a=1; Path=/');
    expect(scopeSetCookie('a=1; Domain=app.proj.apps.test', host, 'apps.test')).toBe('a=1; Domain=app.proj.apps.test');
    expect(scopeSetCookie('a=1; domain=.Proj.Apps.Test', host, 'apps.test')).toBe('a=1; domain=.Proj.Apps.Test');
    expect(scopeSetCookie('a=1; Domain=', host, 'apps.test')).toBe('a=1; Domain=');
  });
  it('makes host-only a cookie for the base domain, a name above it, or a name that is not the host’s', () => {
    expect(scopeSetCookie('a=1; Domain=apps.test; Secure', host, 'apps.test')).toBe('a=1; Secure');
    expect(scopeSetCookie('a=1; Domain=.apps.test.', host, 'apps.test')).toBe('a=1');
    expect(scopeSetCookie('a=1; Domain=test', host, 'apps.test')).toBe('a=1');
    expect(scopeSetCookie('a=1; Domain=other.proj.apps.test', host, 'apps.test')).toBe('a=1');
    expect(scopeSetCookie('a=1; Domain=proj.apps.test; Domain=apps.test', host, 'apps.test')).toBe('a=1');
    expect(scopeSetCookie('a=1; Domain=proj.apps.test', undefined, 'apps.test')).toBe('a=1');
  });
  it('lets a custom domain name its parent, not the base domain', () => {
    expect(scopeSetCookie('a=1; Domain=example.com', 'shop.example.com', 'apps.test')).toBe('a=1; Domain=example.com');
    expect(scopeSetCookie('a=1; Domain=apps.test', 'shop.example.com', 'apps.test')).toBe('a=1');
    // A base domain under a custom domain's parent: that parent is above the base domain.
    expect(scopeSetCookie('a=1; Domain=example.com', 'shop.example.com', 'apps.example.com')).toBe('a=1');
  });
});
