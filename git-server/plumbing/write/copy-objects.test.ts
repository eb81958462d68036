import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runGit } from '../../../src/git/run-git.ts';
import { HERMETIC_GIT_ENV, ScratchRepo } from '../../../src/git/testing/scratch-repo.ts';
import { copyObjects } from './copy-objects.ts';

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const done of cleanup) await done();
});

/** A source with one commit, and an empty bare target. */
async function setup() {
  const source = await ScratchRepo.create();
  const commit = await source.commit('main', { 'a.txt': 'a\n' });
  const root = await mkdtemp(join(tmpdir(), 'cw-copy-'));
  const target = join(root, 'target.git');
  await runGit(['init', '--quiet', '--bare', target], { env: HERMETIC_GIT_ENV });
  cleanup.push(
    () => source.remove(),
    () => rm(root, { recursive: true, force: true }),
  );
  const has = async (oid: string) => (await runGit(['cat-file', '-e', oid], { env: { ...HERMETIC_GIT_ENV, GIT_DIR: target }, okCodes: [0, 1, 128] })).code === 0;
  return { sourceDir: join(source.dir, '.git'), target, commit, has };
}

describe('copyObjects', () => {
  it('copies what the tips reach into the target, and copies nothing once its signal aborted (the client left: review-177 F4)', async () => {
    const { sourceDir, target, commit, has } = await setup();
    await expect(copyObjects({ sourceDir, env: { GIT_DIR: target }, tips: [commit], maxBytes: 1 << 20, signal: AbortSignal.abort() })).rejects.toThrow(/aborted/);
    expect(await has(commit)).toBe(false);
    await copyObjects({ sourceDir, env: { GIT_DIR: target }, tips: [commit], maxBytes: 1 << 20 });
    expect(await has(commit)).toBe(true);
  });
});
