import { describe, expect, it } from 'vitest';
import { DNS_LABEL_PATTERN } from '../../../src/apis/v1alpha1/strings.ts';
import { previewAppName, previewMatcher } from './preview-names.ts';
import { cpuTimeMs } from '../../../src/testing/cpu-time.ts';

const label = new RegExp(DNS_LABEL_PATTERN);

describe('previewAppName', () => {
  it.each([
    ['feature/x', 'web', 'feature-x--web'],
    ['Fix_Login--Bug', 'web', 'fix-login-bug--web'],
    ['dependabot/npm_and_yarn/next-15.0.1', 'shop', 'dependabot-npm-and-yarn-next-15-0-1--shop'],
  ])('%s of %s is %s', (branch, app, name) => {
    expect(previewAppName(branch, app)).toBe(name);
  });

  it('is always a DNS label, and different branches stay apart when names are cut', () => {
    const app = 'a'.repeat(40);
    const long1 = `feature/${'x'.repeat(100)}-one`;
    const long2 = `feature/${'x'.repeat(100)}-two`;
    for (const [branch, forApp] of [
      [long1, app],
      [long2, app],
      ['___', 'web'],
      ['feature/x', 'b'.repeat(63)],
      ['ü', 'web'],
    ] as const) {
      const name = previewAppName(branch, forApp);
      expect(name).toMatch(label);
      expect(name.length).toBeLessThanOrEqual(63);
    }
    expect(previewAppName(long1, app)).not.toBe(previewAppName(long2, app));
    expect(previewAppName(long1, app).endsWith(`--${app}`)).toBe(true);
    expect(previewAppName('___', 'web')).toMatch(/^[0-9a-f]{6}--web$/);
  });

  it('hashed, tells apart branches of the same slug', () => {
    const names = ['fix/login', 'fix-login', 'Fix_Login'].map((branch) => previewAppName(branch, 'web', true));
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toMatch(/^fix-login-[0-9a-f]{6}--web$/);
  });
});

describe('previewMatcher', () => {
  it('matches every branch without patterns, none with an empty list, and * across slashes', () => {
    expect(previewMatcher(undefined)('feature/x')).toBe(true);
    expect(previewMatcher([])('feature/x')).toBe(false);
    expect(previewMatcher(['feature/*'])('feature/x/y')).toBe(true);
    expect(previewMatcher(['feature/*', 'release-*'])('fix/x')).toBe(false);
    expect(previewMatcher(['release-*'])('release-1.2')).toBe(true);
    expect(previewMatcher(['release.1'])('releaseX1')).toBe(false);
  });

  it.each([
    ['*', '', true],
    ['', '', true],
    ['', 'a', false],
    ['a*', 'a', true],
    ['*a', 'ba', true],
    ['*a', 'ab', false],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'axxbyycz', false],
    ['a*b*c', 'acb', false],
    ['**x', 'yyx', true],
    ['feat*/*-fix', 'feature/login-fix', true],
    ['feat*/*-fix', 'feature/login-fixed', false],
    ['a*ab', 'aaab', true],
    ['a*/b', 'a/x/y/b', true],
  ])('%j matches %j: %s', (pattern, text, matches) => {
    expect(previewMatcher([pattern])(text)).toBe(matches);
  });

  it('matches a pattern of many stars against a long branch at once (a tenant’s pattern runs on the operator’s thread)', () => {
    const pattern = `${'a*'.repeat(120)}b`;
    const branch = 'a'.repeat(244);
    const ms = cpuTimeMs(() => {
      expect(previewMatcher([pattern])(branch)).toBe(false);
      expect(previewMatcher([pattern])(`${branch}b`)).toBe(true);
    });
    // A backtracking regular expression took 17 s with 8 stars and 60 characters; this is milliseconds.
    expect(ms).toBeLessThan(1000);
  });

  it('matches twenty patterns of a long run of stars against twenty long branches at once (found in review: 30 s a pass)', () => {
    const matches = previewMatcher(Array.from({ length: 20 }, () => `${'*'.repeat(243)}b`));
    const branches = Array.from({ length: 20 }, (_, i) => `${'a'.repeat(240)}${i}`);
    const ms = cpuTimeMs(() => {
      expect(branches.filter(matches)).toEqual([]);
      expect(matches(`${'a'.repeat(243)}b`)).toBe(true);
    });
    expect(ms).toBeLessThan(1000);
  });
});
