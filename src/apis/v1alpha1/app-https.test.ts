import { describe, expect, it } from 'vitest';
import { hstsHeaderValue, hstsRefusal } from './app-https.ts';

describe('hstsHeaderValue', () => {
  it('defaults max-age to a year and names only the directives asked for', () => {
    expect(hstsHeaderValue({})).toBe('max-age=31536000');
    expect(hstsHeaderValue({ maxAgeSeconds: 300, includeSubdomains: false, preload: false })).toBe('max-age=300');
    expect(hstsHeaderValue({ maxAgeSeconds: 63_072_000, includeSubdomains: true, preload: true })).toBe('max-age=63072000; includeSubDomains; preload');
  });
});

describe('hstsRefusal', () => {
  it('refuses preload without includeSubdomains or under a year, as hstspreload.org does', () => {
    expect(hstsRefusal({ preload: true, includeSubdomains: true })).toBeUndefined();
    expect(hstsRefusal({ maxAgeSeconds: 10 })).toBeUndefined();
    expect(hstsRefusal({ preload: true })).toMatch(/include_subdomains/);
    expect(hstsRefusal({ preload: true, includeSubdomains: true, maxAgeSeconds: 86_400 })).toMatch(/at least 31536000/);
  });
});
