import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BuildStore, buildKey, DISK_BLOCK_BYTES } from './build-store.ts';
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
    // On disk (`onDisk`): worker.js a block, the blob its blocks, `modules/` and `assets/` a block each.
    const onDiskOf = (blobBytes: number) => 3 * DISK_BLOCK_BYTES + Math.ceil(blobBytes / DISK_BLOCK_BYTES) * DISK_BLOCK_BYTES;
    const [SMALL, BIG] = [onDiskOf(1000), onDiskOf(5000)];
    const roomy = new MemoryArtifactSource().put('small', sized(1000)).put('big', sized(5000)).put('bigger', sized(8000));

    it('refuses a build that would take the store past its capacity, keeps nothing of it, and takes it once room comes', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cw-builds-'));
      try {
        const store = new BuildStore(dir, roomy, { capacityBytes: 50_000 });
        await store.prepare({ project: 'p', appId: 'a', buildId: 'big' });
        expect(store.usedBytes).toBe(BIG);
        const refused = await store.prepare({ project: 'q', appId: 'b', buildId: 'small' }).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(refused).toBeUndefined(); // 16,384 more fits in 50,000
        const error = await store.prepare({ project: 'q', appId: 'c', buildId: 'big' }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InsufficientStorageError);
        // Refused at its blob, after its worker and its directory: what it would take at least by then.
        expect((error as Error).message).toBe(
          `The runtime replica has no room for build big: the builds it serves take ${BIG + SMALL} bytes of the 50000 its data directory gives them, and this one takes at least ${BIG - DISK_BLOCK_BYTES} on disk.`,
        );
        expect(readdirSync(dir).sort()).toEqual(['p.a.big', 'q.b.small']);
        expect(store.usedBytes).toBe(BIG + SMALL);
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
        const store = new BuildStore(dir, roomy, { projectQuotaBytes: 40_000 });
        await store.prepare({ project: 'p', appId: 'a', buildId: 'big' });
        await store.prepare({ project: 'p', appId: 'a', buildId: 'bigger' }); // the same app's: `big` does not count against it
        await store.prepare({ project: 'other', appId: 'x', buildId: 'bigger' });
        await store.retain(new Set(['p.a.bigger', 'other.x.bigger'])); // what the engine does once `bigger` serves
        await store.prepare({ project: 'p', appId: 'b', buildId: 'small' });
        const error = await store.prepare({ project: 'p', appId: 'c', buildId: 'big' }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BuildQuotaError);
        expect((error as Error).message).toBe(
          `Build big takes at least ${DISK_BLOCK_BYTES} bytes on disk and the project's other apps' builds ${onDiskOf(8000) + SMALL}: more than the project's quota of 40000 bytes of unpacked builds.`,
        );
        expect(existsSync(join(dir, 'p.c.big'))).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('counts a build as the disk holds it: each file in whole blocks, each directory a block (review-165 F3)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cw-builds-'));
      try {
        // Twenty one-byte files three directories down: with worker.js 38 bytes of content, and on disk 26 blocks: 21
        // files and 5 directories (modules/, assets/, a/, b/, c/).
        const files = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`assets/a/b/c/${i}.txt`, 'x']));
        const many = new MemoryArtifactSource().put('many', artifactFromFiles({ 'worker.js': 'export default {};', ...files }));
        const store = new BuildStore(dir, many, { projectQuotaBytes: 25 * DISK_BLOCK_BYTES });
        await expect(store.prepare({ project: 'p', appId: 'a', buildId: 'many' })).rejects.toBeInstanceOf(BuildQuotaError);
        const roomier = new BuildStore(dir, many, { projectQuotaBytes: 26 * DISK_BLOCK_BYTES });
        const build = await roomier.prepare({ project: 'p', appId: 'a', buildId: 'many' });
        expect([build.unpackedBytes, build.diskBytes, roomier.usedBytes]).toEqual([20 + 18, 26 * DISK_BLOCK_BYTES, 26 * DISK_BLOCK_BYTES]);
        // A store started again counts what is on disk as it was counted.
        const again = new BuildStore(dir, many);
        await again.prepare({ project: 'p', appId: 'a', buildId: 'many' });
        expect(again.usedBytes).toBe(26 * DISK_BLOCK_BYTES);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("takes turns by account: another account's build waits one turn, not one account's whole queue (review-165 F4)", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cw-builds-'));
      const gates: (() => void)[] = [];
      const order: string[] = [];
      const held = {
        async fetch(ref: { project: string; appId: string; buildId: string }) {
          order.push(`${ref.project}/${ref.appId}`);
          const bytes = roomy.builds.get(ref.buildId)!;
          return (async function* () {
            await new Promise<void>((resolve) => gates.push(resolve));
            yield bytes;
          })();
        },
      };
      try {
        // Two projects of one user are one account; a third project is another's.
        const store = new BuildStore(dir, held, { concurrency: 1, accountOf: (project) => (project === 'other' ? 'user:bob' : 'user:ann') });
        const busy = ['a', 'b', 'c'].map((appId, i) => store.prepare({ project: i === 2 ? 'p2' : 'p', appId, buildId: 'small' }));
        // One holds the slot and the other two wait (their manifest reads end in no set order) before bob's asks.
        await vi.waitFor(() => expect([gates.length, store.waitingToPrepare]).toEqual([1, 2]));
        const other = store.prepare({ project: 'other', appId: 'x', buildId: 'small' });
        for (let done = 0; done < 4; done++) {
          await vi.waitFor(() => expect(gates.length).toBe(1));
          gates.shift()!();
        }
        await Promise.all([...busy, other]);
        // The account waiting first has its turn first, then the other's (other/x), before the first's last.
        expect(order[2]).toBe('other/x');
        expect([...order].sort()).toEqual(['other/x', 'p/a', 'p/b', 'p2/c']);
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
