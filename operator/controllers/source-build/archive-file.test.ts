import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitCommandError } from '../../../src/git/run-git.ts';
import { ScratchRepo } from '../../../src/git/testing/scratch-repo.ts';
import { ArchiveTooLargeError, gitArchiveToFile } from './archive-file.ts';

describe('gitArchiveToFile', () => {
  let repo: ScratchRepo;
  let work: string;
  let commit: string;
  beforeAll(async () => {
    repo = await ScratchRepo.create();
    work = await mkdtemp(join(tmpdir(), 'cw-archive-test-'));
    // Random bytes: gzip cannot shrink them below the cap.
    commit = await repo.commit('main', { 'app/index.js': 'export default {}\n', 'app/blob.txt': randomBytes(256 * 1024).toString('base64') });
  });
  afterAll(async () => {
    await repo.remove();
    await rm(work, { recursive: true, force: true });
  });

  it('writes the archive to the file and answers its size', async () => {
    const file = join(work, 'ok.tar.gz');
    const bytes = await gitArchiveToFile(repo.dir, `${commit}:app`, 'tar.gz', file, 4 * 1024 * 1024);
    expect((await stat(file)).size).toBe(bytes);
    expect(gunzipSync(await readFile(file)).includes('export default {}')).toBe(true);
  });

  it('stops at the cap with ArchiveTooLargeError, not a git failure', async () => {
    const file = join(work, 'big.tar');
    await expect(gitArchiveToFile(repo.dir, commit, 'tar', file, 64 * 1024)).rejects.toBeInstanceOf(ArchiveTooLargeError);
    expect((await stat(file)).size).toBeLessThanOrEqual(64 * 1024);
  });

  it('fails as git does for a path that is not in the commit', async () => {
    await expect(gitArchiveToFile(repo.dir, `${commit}:nope`, 'tar', join(work, 'none.tar'), 1024 * 1024)).rejects.toBeInstanceOf(GitCommandError);
  });
});
