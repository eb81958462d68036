import { describe, expect, it } from 'vitest';
import { normalizeRepoPath } from './repo-file-path.ts';

describe('normalizeRepoPath', () => {
  it('drops a trailing slash and keeps the root empty', () => {
    expect(normalizeRepoPath('src/app.js')).toBe('src/app.js');
    expect(normalizeRepoPath('src/')).toBe('src');
    expect(normalizeRepoPath('')).toBe('');
  });
  it('refuses empty, . and .. segments and control bytes', () => {
    for (const path of ['src//a', './a', 'a/../b', '..', 'a\nb', 'a\0b', 'x'.repeat(5000)]) {
      expect(() => normalizeRepoPath(path), path).toThrow(/is not a path/);
    }
  });
});
