// The stock git-lfs client against two cw-git instances: a project with an LFS file and tags pushed through
// one instance comes back identical, large file included, from a clone through the other.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { lfsObjectKey, parseRepoPath } from '../src/repo-store/index.ts';
import { useGitTestbed } from './harness/git-testbed.ts';

const bed = useGitTestbed();

describe('git-lfs through two instances', () => {
  it('pushes an LFS file through one instance and clones it, smudged, through the other', async () => {
    const { git, remote } = bed;
    const repo = await bed.createRepo();

    const work = await git.workdir(`lfs-src-${randomBytes(3).toString('hex')}`);
    await git.run(['init', '-q'], { cwd: work });
    await git.run(['lfs', 'track', '*.bin'], { cwd: work });
    const large = randomBytes(3 * 1024 * 1024);
    await writeFile(join(work, 'model.bin'), large);
    await git.commit(work, 'add model', { 'README.md': 'model inside\n' });
    await git.run(['tag', '-a', 'v1', '-m', 'first model'], { cwd: work });
    await git.run(['push', '-q', remote(bed.a, repo), 'main', '--tags'], { cwd: work });

    // The object is in the bucket under the repository, checked against its oid.
    const oid = (await git.out(['lfs', 'ls-files', '--long'], work)).split(' ')[0]!;
    const stored = await new S3ObjectStore({ config: bed.setup.s3, bucket: bed.setup.bucket }).head(lfsObjectKey(parseRepoPath(repo), oid));
    expect(stored?.size).toBe(large.length);

    const clone = join(git.home, `lfs-clone-${randomBytes(3).toString('hex')}`);
    await git.run(['clone', '-q', remote(bed.b, repo), clone]);
    expect((await readFile(join(clone, 'model.bin'))).equals(large)).toBe(true);
    expect(await git.out(['show-ref'], clone)).toContain('refs/tags/v1');
    expect(await git.out(['rev-parse', 'HEAD', 'v1^{}'], clone)).toBe(await git.out(['rev-parse', 'HEAD', 'v1^{}'], work));
    await git.run(['lfs', 'fsck'], { cwd: clone });
  });
});
