import { describe, expect, it } from 'vitest';
import { effectiveScopes, hasScope, isScope, knownScopes, parseScopes, SCOPE_NAMES, SCOPES, type Scope } from './scopes.ts';
import { BadRequestError } from '../errors.ts';

describe('scope catalog', () => {
  it('holds the names the spec and the brief fix, each described', () => {
    expect(SCOPE_NAMES).toEqual([
      'projects:read',
      'projects:write',
      'apps:read',
      'apps:write',
      'deploys:write',
      'env:read',
      'env:write',
      'databases:read',
      'databases:write',
      'domain:read',
      'domain:write',
      'repositories:read',
      'repositories:write',
      'audit:read',
      'tokens:read',
      'tokens:write',
      'admin',
    ]);
    for (const name of SCOPE_NAMES) expect(SCOPES[name].length).toBeGreaterThan(10);
  });

  it('fits the AccessToken CRD scope pattern', () => {
    for (const name of SCOPE_NAMES) expect(name).toMatch(/^[a-z][a-z0-9_-]*(:[a-z][a-z0-9_-]*)*$/);
  });

  it.each([
    { name: 'apps:read', known: true },
    { name: 'toString', known: false },
    { name: '__proto__', known: false },
    { name: 'APPS:READ', known: false },
  ])('isScope($name) is $known', ({ name, known }) => {
    expect(isScope(name)).toBe(known);
  });
});

describe('parseScopes', () => {
  it.each<{ input: string | string[]; expected: Scope[] }>([
    { input: ['apps:read'], expected: ['apps:read'] },
    { input: ['admin', 'apps:write', 'apps:write'], expected: ['apps:write', 'admin'] },
    { input: 'domain:write  apps:read\tenv:read', expected: ['apps:read', 'env:read', 'domain:write'] },
    { input: ' tokens:read ', expected: ['tokens:read'] },
  ])('accepts $input', ({ input, expected }) => {
    expect(parseScopes(input)).toEqual(expected);
  });

  it.each<{ input: string | string[]; detail: RegExp }>([
    { input: [], detail: /^At least one scope is required\.$/ },
    { input: '', detail: /^At least one scope is required\.$/ },
    { input: '   ', detail: /^At least one scope is required\.$/ },
    { input: ['apps:read', 'apps:delete'], detail: /^Unknown scope "apps:delete"\. Valid scopes: projects:read, / },
    { input: 'foo bar foo', detail: /^Unknown scopes "foo", "bar"\./ },
    { input: ['Apps:Read'], detail: /^Unknown scope "Apps:Read"\./ },
    { input: [''], detail: /^Unknown scope ""\./ },
    { input: ['x'.repeat(10_000)], detail: /^Unknown scope "x{64}…"\./ },
  ])('refuses $input', ({ input, detail }) => {
    const error = catchError(() => parseScopes(input));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400 });
    expect((error as Error).message).toMatch(detail);
  });
});

describe('knownScopes', () => {
  it('keeps catalog names in catalog order and drops the rest', () => {
    expect(knownScopes(['legacy:thing', 'domain:read', 'apps:read', 'admin'])).toEqual(['apps:read', 'domain:read', 'admin']);
  });
});

describe('effectiveScopes', () => {
  it('keeps catalog names in catalog order, drops the rest, and keeps admin for administrators only', () => {
    const stored = ['legacy:thing', 'domain:read', 'apps:read', 'admin', 'apps:read', 'constructor'];
    expect(effectiveScopes(stored, true)).toEqual(['apps:read', 'domain:read', 'admin']);
    expect(effectiveScopes(stored, false)).toEqual(['apps:read', 'domain:read']);
    expect(effectiveScopes([], true)).toEqual([]);
  });

  it('hands out one frozen list per combination', () => {
    const first = effectiveScopes(['env:read', 'apps:write'], false);
    expect(effectiveScopes(['apps:write', 'env:read', 'admin'], false)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });
});

describe('hasScope', () => {
  it.each<{ granted: Scope[]; needed: Scope; expected: boolean }>([
    { granted: ['apps:read'], needed: 'apps:read', expected: true },
    { granted: ['apps:write'], needed: 'apps:read', expected: true },
    { granted: ['apps:read'], needed: 'apps:write', expected: false },
    { granted: ['apps:write'], needed: 'env:read', expected: false },
    { granted: ['domain:write'], needed: 'domain:read', expected: true },
    { granted: ['deploys:write'], needed: 'apps:write', expected: false },
    { granted: ['deploys:write'], needed: 'apps:read', expected: false },
    { granted: ['admin'], needed: 'apps:read', expected: false },
    { granted: ['admin'], needed: 'admin', expected: true },
    { granted: ['tokens:write'], needed: 'tokens:read', expected: true },
    { granted: [], needed: 'projects:read', expected: false },
  ])('$granted grants $needed: $expected', ({ granted, needed, expected }) => {
    expect(hasScope(granted, needed)).toBe(expected);
    expect(hasScope(new Set(granted), needed)).toBe(expected);
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
