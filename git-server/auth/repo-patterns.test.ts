import { describe, expect, it } from 'vitest';
import { parseRepoPath } from '../../src/repo-store/repo-path.ts';
import { describeReach, EVERY_REPOSITORY, isRepoPattern, reaches, repoReach } from './repo-patterns.ts';
import { cpuTimeMs } from '../../src/testing/cpu-time.ts';

const repo = parseRepoPath;

describe('repository patterns', () => {
  it('reads an owner alone as every repository of that owner, and nothing of another owner', () => {
    const reach = repoReach(['acme']);
    expect(reaches(reach, repo('acme/site'))).toBe(true);
    expect(reaches(reach, repo('acme/docs.v2'))).toBe(true);
    for (const other of ['acme2/site', 'acm/site', 'xacme/site', 'Acme/site', 'beta/acme']) expect(reaches(reach, repo(other)), other).toBe(false);
    expect(describeReach(reach)).toBe('acme/*');
  });

  it('matches one repository exactly, case-sensitively', () => {
    const reach = repoReach(['acme/site']);
    expect(reaches(reach, repo('acme/site'))).toBe(true);
    for (const other of ['acme/site2', 'acme/Site', 'acme/sit', 'acme/docs']) expect(reaches(reach, repo(other)), other).toBe(false);
  });

  it('lets * stand for any characters within its segment only', () => {
    const reach = repoReach(['team-*', 'acme/docs-*']);
    expect(reaches(reach, repo('team-a/x'))).toBe(true);
    expect(reaches(reach, repo('team-/x'))).toBe(true);
    expect(reaches(reach, repo('acme/docs-api'))).toBe(true);
    expect(reaches(reach, repo('acme/docs'))).toBe(false);
    expect(reaches(reach, repo('teams/x'))).toBe(false);
    expect(reaches(repoReach(['*']), repo('anyone/anything'))).toBe(true);
    expect(reaches(repoReach(['*/site']), repo('a/site'))).toBe(true);
    expect(reaches(repoReach(['*/site']), repo('a/other'))).toBe(false);
    expect(describeReach(reach)).toBe('team-*/*, acme/docs-*');
  });

  it('reaches everything without patterns, as the operator’s own tokens do', () => {
    expect(reaches(EVERY_REPOSITORY, repo('any/thing'))).toBe(true);
    expect(describeReach(EVERY_REPOSITORY)).toBe('every repository');
  });

  it('de-duplicates patterns that mean the same', () => {
    expect(describeReach(repoReach(['acme', 'acme/*', 'beta']))).toBe('acme/*, beta/*');
  });

  it.each(['', '/', 'acme/', '/site', 'a/b/c', 'ac me', 'acme/**', '**', 'acme/si+te', 'a'.repeat(101), 'acme\n'])('refuses %j', (pattern) => {
    expect(isRepoPattern(pattern)).toBe(false);
    expect(() => repoReach([pattern])).toThrow(/is not a repository pattern/);
  });

  it('refuses an empty or over-long list', () => {
    expect(() => repoReach([])).toThrow(/at least one/);
    expect(() => repoReach(Array.from({ length: 33 }, (_, i) => `o${i}`))).toThrow(/at most 32/);
  });

  it('stays fast on a pattern built to backtrack', () => {
    const reach = repoReach([`${'*a'.repeat(40)}*b`]);
    expect(cpuTimeMs(() => expect(reaches(reach, repo(`${'a'.repeat(100)}/x`))).toBe(false))).toBeLessThan(200);
  });
});
