import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BuildStore, buildKey } from './build-store.ts';
import { ArtifactError } from './errors.ts';
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
});
