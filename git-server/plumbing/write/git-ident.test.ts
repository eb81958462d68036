import { describe, expect, it } from 'vitest';
import { gitDate, identityEnv } from './git-ident.ts';

describe('gitDate', () => {
  it('keeps the offset as written and the instant exact', () => {
    expect(gitDate('2026-03-01T12:00:00+02:00')).toBe(`${Date.UTC(2026, 2, 1, 10) / 1000} +0200`);
    expect(gitDate('2026-03-01T12:00:00.999Z')).toBe(`${Date.UTC(2026, 2, 1, 12) / 1000} +0000`);
    expect(gitDate('2026-03-01t12:00:00-05:30')).toBe(`${Date.UTC(2026, 2, 1, 17, 30) / 1000} -0530`);
  });

  it('refuses dates without an offset or out of range', () => {
    for (const bad of ['2026-03-01T12:00:00', '2026-03-01', 'yesterday', '2026-13-01T00:00:00Z', '1700000000 +0000']) {
      expect(() => gitDate(bad), bad).toThrow(/not (an RFC 3339|a valid)/);
    }
  });
});

describe('identityEnv', () => {
  it('sets both roles, the author defaulting to the committer and the date to now in UTC', () => {
    const env = identityEnv({ name: 'Ada', email: 'ada@example.test' }, undefined, () => new Date(1_700_000_000_500));
    expect(env).toEqual({
      GIT_COMMITTER_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'ada@example.test',
      GIT_COMMITTER_DATE: '1700000000 +0000',
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'ada@example.test',
      GIT_AUTHOR_DATE: '1700000000 +0000',
    });
  });

  it('refuses what would break the commit header', () => {
    expect(() => identityEnv({ name: 'A\nB', email: 'a@x' })).toThrow(/cannot be recorded/);
    expect(() => identityEnv({ name: 'A', email: '' })).toThrow(/cannot be recorded/);
  });
});
