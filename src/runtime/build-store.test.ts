import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BuildStore } from './build-store.ts';
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
      ['worker.js', join(root, 'b1', 'modules', 'worker.js')],
      ['lib/x.js', join(root, 'b1', 'modules', 'lib/x.js')],
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

  it('refuses build ids that are not DNS labels (they name directories)', async () => {
    await expect(new BuildStore(root, artifacts).prepare(ref('../etc'))).rejects.toThrow('invalid build id');
  });

  it('retain deletes the builds not kept', async () => {
    const store = new BuildStore(root, artifacts);
    await store.prepare(ref('b1'));
    await store.prepare(ref('b2'));
    await store.retain(new Set(['b2']));
    expect(existsSync(join(root, 'b1'))).toBe(false);
    expect(existsSync(join(root, 'b2', 'build.json'))).toBe(true);
  });
});
