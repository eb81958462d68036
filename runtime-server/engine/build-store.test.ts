import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BuildStore, buildKey } from './build-store.ts';
import { ArtifactError, BuildQuotaError, InsufficientStorageError } from '../../src/app-artifacts/errors.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';

const ref = (buildId: string) => ({ project: 'p', appId: 'a', buildId });

describe('BuildStore', () => {
  const root = mkdtempSync(join(tmpdir(), 'cw-builds-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const artifacts = new MemoryArtifactSource()
    .put('b1', artifactFromFiles({ 'worker.js': 'export default {};', 'lib/x.js': 'export const x = 1;', 'assets/a.css': 'a{}' }))
    .put('b2', artifactFromFiles({ 'worker.js': 'export default {};' }))
    .put('bad', new Uint8Array([1, 2, 3]));

  it('unpacks modules and assets once, and a new store reuses what is on disk', async () => {
    const store = new BuildStore(root, artifacts);
    const [a, b] = await Promise.all([store.prepare(ref('b1')), store.prepare(ref('b1'))]);
    expect(a).toBe(b);
    expect(artifacts.fetches).toBe(1);
    expect(a.modules.map((m) => [m.name, m.file])).toEqual([
      ['worker.js', join(root, 'p.a.b1', 'modules', 'worker.js')],
      ['lib/x.js', join(root, 'p.a.b1', 'modules', 'lib/x.js')],
    ]);
    expect(readFileSync(join(a.assetsDir!, 'a.css'), 'utf8')).toBe('a{}');
    expect((await store.prepare(ref('b2'))).assetsDir).toBeUndefined();
    const again = await new BuildStore(root, artifacts).prepare(ref('b1'));
    expect(again).toEqual(a);
    expect(artifacts.fetches).toBe(2); // b1 once, b2 once
  });

  it('keeps refusing an invalid artifact without fetching it again, but retries a failed fetch', async () => {
    const store = new BuildStore(root, artifacts);
    const before = artifacts.fetches;
    await expect(store.prepare(ref('bad'))).rejects.toBeInstanceOf(ArtifactError);
    await expect(store.prepare(ref('bad'))).rejects.toBeInstanceOf(ArtifactError);
    expect(artifacts.fetches).toBe(before + 1);
    await expect(store.prepare(ref('missing'))).rejects.toThrow('no such build');
    await expect(store.prepare(ref('missing'))).rejects.toThrow('no such build');
    expect(artifacts.fetches).toBe(before + 3);
  });

  it('refuses build ids, projects and app ids that are not DNS labels (they name directories)', async () => {
    await expect(new BuildStore(root, artifacts).prepare(ref('../etc'))).rejects.toThrow('invalid build id');
    await expect(new BuildStore(root, artifacts).prepare({ project: 'p/..', appId: 'a', buildId: 'b1' })).rejects.toThrow('invalid project');
    await expect(new BuildStore(root, artifacts).prepare({ project: 'p', appId: 'a.b', buildId: 'b1' })).rejects.toThrow('invalid app id');
  });

  it('never hands one app the build another app unpacked under the same id: it fetches its own', async () => {
    const store = new BuildStore(root, artifacts);
    const mine = await store.prepare(ref('b1'));
    const before = artifacts.fetches;
    const theirs = await store.prepare({ project: 'other', appId: 'site', buildId: 'b1' });
    expect(artifacts.fetches).toBe(before + 1);
    expect(theirs.modules[0]?.file).toBe(join(root, 'other.site.b1', 'modules', 'worker.js'));
    expect(mine.modules[0]?.file).toBe(join(root, 'p.a.b1', 'modules', 'worker.js'));
  });

  it('retain deletes the builds not kept', async () => {
    const store = new BuildStore(root, artifacts);
    await store.prepare(ref('b1'));
    await store.prepare(ref('b2'));
    await store.retain(new Set([buildKey(ref('b2'))]));
    expect(existsSync(join(root, 'p.a.b1'))).toBe(false);
    expect(existsSync(join(root, 'p.a.b2', 'build.json'))).toBe(true);
  });

  // Twelve unpacks and deletions of 201 files: a second or two on a busy two-core machine, past the 5 s default at load 10.
  it('never hands out a build whose files a retain is deleting: asked for again meanwhile, it is kept or unpacked anew', { timeout: 30_000 }, async () => {
    const files: Record<string, string> = { 'worker.js': 'export default {};' };
    for (let i = 0; i < 200; i++) files[`assets/f${i}.css`] = 'a{}';
    const many = new MemoryArtifactSource().put('b3', artifactFromFiles(files));
    for (const turns of [0, 1, 2, 3, 5, 8]) {
      const store = new BuildStore(mkdtempSync(join(root, 'race-')), many);
      await store.prepare(ref('b3'));
      // A pass let the app go; its first request comes back while the deletion runs, a few turns into it.
      const collecting = store.retain(new Set());
      for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
      const build = await store.prepare(ref('b3'));
      await collecting;
      expect([turns, existsSync(build.modules[0]!.file), existsSync(join(build.assetsDir!, 'f199.css'))]).toEqual([turns, true, true]);
    }
  });

  describe('room on disk', () => {
    const sized = (bytes: number) => artifactFromFiles({ 'worker.js': 'export default {};', 'assets/blob': new Uint8Array(bytes) });
    const WORKER_BYTES = 'export default {};'.length;
    const roomy = new MemoryArtifactSource().put('small', sized(1000)).put('big', sized(5000)).put('bigger', sized(8000));

    it('refuses a build that would take the store past its capacity, keeps nothing of it, and takes it once room comes', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cw-builds-'));
      try {
        const store = new BuildStore(dir, roomy, { capacityBytes: 7000 });
        await store.prepare({ project: 'p', appId: 'a', buildId: 'big' });
        expect(store.usedBytes).toBe(5000 + WORKER_BYTES);
        const refused = await store.prepare({ project: 'q', appId: 'b', buildId: 'small' }).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(refused).toBeUndefined(); // 1018 more fits in 7000
        const error = await store.prepare({ project: 'q', appId: 'c', buildId: 'big' }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InsufficientStorageError);
        expect((error as Error).message).toBe(
          `The runtime replica has no room for build big: the builds it serves take ${5000 + 1000 + 2 * WORKER_BYTES} bytes of the 7000 its data directory gives them, and this one unpacks to at least ${5000 + WORKER_BYTES}.`,
        );
        expect(readdirSync(dir).sort()).toEqual(['p.a.big', 'q.b.small']);
        expect(store.usedBytes).toBe(5000 + 1000 + 2 * WORKER_BYTES);
        // While nothing changes, it is refused again without being fetched again.
        const fetches = roomy.fetches;
        await expect(store.prepare({ project: 'q', appId: 'c', buildId: 'big' })).rejects.toBeInstanceOf(InsufficientStorageError);
        expect(roomy.fetches).toBe(fetches);
        // Not remembered as a failure for good: once the big build goes, the same build is prepared.
        await store.retain(new Set(['q.b.small', 'q.c.big']));
        await store.prepare({ project: 'q', appId: 'c', buildId: 'big' });
        expect(roomy.fetches).toBe(fetches + 1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('refuses a build that would take its project past its quota; the app’s own other builds and other projects do not count', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cw-builds-'));
      try {
        const store = new BuildStore(dir, roomy, { projectQuotaBytes: 10_000 });
        await store.prepare({ project: 'p', appId: 'a', buildId: 'big' });
        await store.prepare({ project: 'p', appId: 'a', buildId: 'bigger' }); // the same app's: `big` does not count against it
        await store.prepare({ project: 'other', appId: 'x', buildId: 'bigger' });
        await store.retain(new Set(['p.a.bigger', 'other.x.bigger'])); // what the engine does once `bigger` serves
        await store.prepare({ project: 'p', appId: 'b', buildId: 'small' });
        const error = await store.prepare({ project: 'p', appId: 'c', buildId: 'big' }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BuildQuotaError);
        expect((error as Error).message).toBe(
          `Build big unpacks to at least ${5000 + WORKER_BYTES} bytes and the project's other apps' builds to ${8000 + 1000 + 2 * WORKER_BYTES}: more than the project's quota of 10000 bytes of unpacked builds.`,
        );
        expect(existsSync(join(dir, 'p.c.big'))).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('unpacks at most its concurrency at once', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cw-builds-'));
      // Each artifact's bytes wait for its gate: what is waiting is what is being unpacked.
      const gates: (() => void)[] = [];
      let fetched = 0;
      const held = {
        async fetch(ref: { buildId: string }) {
          fetched += 1;
          const bytes = roomy.builds.get(ref.buildId)!;
          return (async function* () {
            await new Promise<void>((resolve) => gates.push(resolve));
            yield bytes;
          })();
        },
      };
      try {
        const store = new BuildStore(dir, held, { concurrency: 2 });
        const all = Promise.all(['a', 'b', 'c', 'd', 'e'].map((appId) => store.prepare({ project: 'p', appId, buildId: 'small' })));
        for (let done = 0; done < 5; done++) {
          await vi.waitFor(() => expect(gates.length).toBe(Math.min(2, 5 - done)));
          expect(fetched).toBe(Math.min(5, done + 2));
          gates.shift()!();
        }
        await all;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
