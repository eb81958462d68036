import { existsSync } from 'node:fs';
import { mkdtemp, rm as removeDir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { ScratchRepo } from '../../../src/git/testing/scratch-repo.ts';
import { MemoryObjectStore } from '../../../src/object-store/memory-object-store.ts';
import { RepoStore, zeroOid } from '../../../src/repo-store/index.ts';
import { packBytes } from '../../../src/repo-store/state.ts';

// The copies kept between builds are trimmed to their bytes, least recently built first, when two exports end
// together too (review-167 F4: each trim counted the total once, then both removed). Removing a copy takes a while
// for a large repository: 300 ms here, so the two trims overlap.
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    rm: async (path: string, options?: object) => {
      if (String(path).includes('/repos/')) await new Promise((r) => setTimeout(r, 300));
      return real.rm(path, options as never);
    },
  };
});
const { SourceExporter } = await import('./source-export.ts');

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function pushed(repos: RepoStore, repo: string, files: Record<string, string>) {
  await repos.createRepo(repo);
  const work = await ScratchRepo.create('sha1');
  cleanups.push(() => work.remove());
  const commit = await work.commit('main', files);
  const { pack, idx } = await work.pack([commit]);
  await repos.publish(repo, { kind: 'push', refUpdates: [{ ref: 'refs/heads/main', old: zeroOid('sha1'), new: commit }], pusher: 'a', requestId: 'r', atomic: true, pack: { body: pack, idx } });
  const head = await repos.readHead(repo);
  return { repo, repoId: head.repoId, commit, bytes: packBytes(head.packs) };
}

it('keeps as many copies as the cache holds when two exports end together, the most recently built (review-167 F4)', async () => {
  const repos = new RepoStore({ store: new MemoryObjectStore() });
  const all = [];
  for (const name of ['r1', 'r2', 'r3', 'r4']) all.push(await pushed(repos, `acme/${name}`, { 'a.txt': 'same size\n' }));
  const max = Math.max(...all.map((r) => r.bytes));
  const workDir = await mkdtemp(join(tmpdir(), 'cw-evict-'));
  cleanups.push(() => removeDir(workDir, { recursive: true, force: true }));
  const exporter = new SourceExporter({ repos, artifacts: new MemoryObjectStore(), workDir, limits: { maxRepositoryBytes: 1024 ** 3, cacheBytes: 2 * max } });
  const copy = (r: { repo: string }) => join(workDir, 'repos', 'acme', `${r.repo.split('/')[1]}.git`);
  const [r1, r2, r3, r4] = all as [(typeof all)[0], (typeof all)[0], (typeof all)[0], (typeof all)[0]];
  await exporter.export(r1.repo, r1.repoId, r1.commit, undefined, { key: '1.tar', format: 'tar' });
  await exporter.export(r2.repo, r2.repoId, r2.commit, undefined, { key: '2.tar', format: 'tar' });
  expect([existsSync(copy(r1)), existsSync(copy(r2))]).toEqual([true, true]);
  await Promise.all([
    exporter.export(r3.repo, r3.repoId, r3.commit, undefined, { key: '3.tar', format: 'tar' }),
    exporter.export(r4.repo, r4.repoId, r4.commit, undefined, { key: '4.tar', format: 'tar' }),
  ]);
  const kept = all.filter((r) => existsSync(copy(r))).map((r) => r.repo);
  // The cache holds two: r3 and r4, the most recently built, should be kept.
  expect(kept).toEqual(['acme/r3', 'acme/r4']);
});
