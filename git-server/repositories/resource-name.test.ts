import { describe, expect, it } from 'vitest';
import { DNS_LABEL_PATTERN } from '../../src/apis/v1alpha1/strings.ts';
import { parseRepoPath } from '../../src/repo-store/index.ts';
import { repositoryResourceName } from './resource-name.ts';

const nameOf = (full: string) => repositoryResourceName(parseRepoPath(full));

describe('repositoryResourceName', () => {
  it('is readable and deterministic', () => {
    expect(nameOf('acme/app')).toMatch(/^acme-app-[0-9a-f]{10}$/);
    expect(nameOf('acme/app')).toBe(nameOf('acme/app'));
  });

  it('keeps apart names that differ only in case or punctuation', () => {
    const names = ['acme/app', 'Acme/App', 'acme/APP', 'a.b/c', 'a-b/c', 'a_b/c', 'a/b-c'].map(nameOf);
    expect(new Set(names).size).toBe(names.length);
    expect(nameOf('Acme/My_Repo.v2')).toMatch(/^acme-my-repo-v2-[0-9a-f]{10}$/);
  });

  it('is a DNS-1123 label for every valid repository name, however long or odd', () => {
    const long = 'x'.repeat(100);
    for (const full of [`${long}/${long}`, '_/_', '__/_-_', 'A/b', '9/9.9', `a/_${'-'.repeat(99)}`]) {
      const name = nameOf(full);
      expect(name, full).toMatch(new RegExp(DNS_LABEL_PATTERN));
      expect(name.length, full).toBeLessThanOrEqual(63);
    }
    expect(nameOf('_/_')).toMatch(/^[0-9a-f]{10}$/);
  });
});
