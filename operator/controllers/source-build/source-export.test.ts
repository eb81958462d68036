import { describe, expect, it } from 'vitest';
import { GitCommandError } from '../../../src/git/run-git.ts';
import { ArchiveTooLargeError } from './archive-file.ts';
import { sourceError, SourceUnavailableError } from './source-export.ts';

describe('sourceError', () => {
  it('fails the build with SourceUnavailable for an archive over the cap, rather than retrying it', () => {
    const err = sourceError(new ArchiveTooLargeError('the source archive is larger than 536870912 bytes'), 'missing');
    expect(err).toBeInstanceOf(SourceUnavailableError);
    expect((err as Error).message).toMatch(/larger than 536870912 bytes \(512 MiB at most\)/);
  });

  it('says what is missing when git cannot find the commit or the directory', () => {
    const err = sourceError(new GitCommandError('git archive', 128, 'exited with code 128', 'fatal: not a tree object: abc:nope'), 'nope is not a directory');
    expect(err).toEqual(new SourceUnavailableError('nope is not a directory'));
  });

  it('leaves any other failure as it is (retried)', () => {
    const other = new GitCommandError('git archive', null, 'could not run: ENOENT');
    expect(sourceError(other, 'missing')).toBe(other);
  });
});
