// `git archive` as the service runs it, against a host whose git configuration would break it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ScratchRepo } from '../../../src/git/testing/scratch-repo.ts';
import { writeArchive } from './archive.ts';

const POINTER = 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n';

describe('writeArchive', () => {
  const home = mkdtempSync(join(tmpdir(), 'cw-archive-home-'));
  const saved = process.env.GIT_CONFIG_GLOBAL;
  afterAll(() => {
    if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
    else process.env.GIT_CONFIG_GLOBAL = saved;
    rmSync(home, { recursive: true, force: true });
  });

  it("serves an LFS pointer as stored, whatever filters the host's git configuration names", async () => {
    const repo = await ScratchRepo.create();
    const commit = await repo.commit('main', { '.gitattributes': '*.bin filter=lfs diff=lfs merge=lfs -text\n', 'model.bin': POINTER, 'README.md': 'hello\n' });
    // The host's user configuration: an LFS smudge filter that is required and fails (git-lfs without the object).
    const config = join(home, 'gitconfig');
    writeFileSync(config, '[filter "lfs"]\n\tsmudge = false\n\tprocess = false\n\trequired = true\n');
    process.env.GIT_CONFIG_GLOBAL = config;
    const chunks: Buffer[] = [];
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    await writeArchive({ dir: join(repo.dir, '.git'), commit, format: 'tar.gz', prefix: 'site/' }, out);
    const tar = gunzipSync(Buffer.concat(chunks)).toString('latin1');
    expect(tar).toContain('site/model.bin');
    expect(tar).toContain(POINTER);
    expect(tar).toContain('hello\n');
    await repo.remove();
  });
});
