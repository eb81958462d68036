// What `cw deploy` packs: worker directories, Next.js (OpenNext) builds and prebuilt artifacts, read back with tar and zstd.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError, UsageError } from '../errors.ts';
import { artifactFrom, nameFromPath } from './pack.ts';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cw-pack-test-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes files (path relative to the temp dir → content). */
function files(tree: Record<string, string>): void {
  for (const [path, content] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/** The tar inside a .tar.zst, decompressed by the real zstd. */
function untar(bytes: Buffer): Buffer {
  return execFileSync('zstd', ['-d', '-c'], { input: bytes });
}

/** The archive's entries, in archive order, as the real tar lists them. */
function entries(bytes: Buffer): string[] {
  return execFileSync('tar', ['-tf', '-'], { input: untar(bytes), encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

/** One file's content from the archive. */
function fileIn(bytes: Buffer, path: string): string {
  return execFileSync('tar', ['-xOf', '-', path], { input: untar(bytes), encoding: 'utf8' });
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (err: unknown) => err as Error,
  );
}

describe('a worker directory', () => {
  it('packs its files sorted, without dependencies, version control, secrets or macOS litter', async () => {
    files({
      'worker.js': 'export default {}',
      'lib/util.js': 'export const x = 1',
      'lib/.env': 'SECRET=1',
      'cloudwright.json': '{}',
      'node_modules/dep/index.js': '',
      '.git/HEAD': 'ref: refs/heads/main',
      '.env': 'SECRET=1',
      '.env.local': 'SECRET=1',
      '.DS_Store': '',
      '._worker.js': '',
    });
    const artifact = await artifactFrom(dir);
    expect(artifact.kind).toBe('worker');
    expect(artifact.files).toBe(3);
    expect(entries(artifact.bytes)).toEqual(['cloudwright.json', 'lib/util.js', 'worker.js']);
    expect(fileIn(artifact.bytes, 'worker.js')).toBe('export default {}');
  });

  it('packs the same files to the same archive: fixed times and owners', async () => {
    files({ 'worker.js': 'export default {}', 'a/b.js': '' });
    const first = untar((await artifactFrom(dir)).bytes);
    expect(untar((await artifactFrom(dir)).bytes).equals(first)).toBe(true);
    const listing = execFileSync('tar', ['-tvf', '-'], { input: first, encoding: 'utf8', env: { ...process.env, TZ: 'UTC' } });
    for (const line of listing.trim().split('\n')) expect(line).toMatch(/^-\S+ 0\/0 +\d+ 1970-01-01 00:00 /);
  });

  // A zstd stream used to add an empty frame now and then (about 1 pack in 10-20), changing the build id.
  it('packs the same files to the same compressed bytes', async () => {
    files({ 'worker.js': 'export default {}', 'a/b.js': '' });
    const first = (await artifactFrom(dir)).bytes;
    for (let i = 0; i < 50; i++) expect((await artifactFrom(dir)).bytes.equals(first)).toBe(true);
  });

  it('leaves out wrangler’s and npm’s local secrets', async () => {
    files({ 'worker.js': '', '.dev.vars': 'S=1', '.dev.vars.staging': 'S=2', '.npmrc': '//registry/:_authToken=x' });
    expect(entries((await artifactFrom(dir)).bytes)).toEqual(['worker.js']);
  });

  it('packs a name starting with @ as a file (node-tar would read it as an archive to splice in)', async () => {
    files({ 'worker.js': '', '@lib/a.js': 'export const a = 1' });
    const bytes = (await artifactFrom(dir)).bytes;
    expect(entries(bytes)).toEqual(['./@lib/a.js', 'worker.js']);
    expect(fileIn(bytes, './@lib/a.js')).toBe('export const a = 1');
  });

  it('packs what a symbolic link inside the directory points at, and refuses one pointing outside or nowhere', async () => {
    files({ 'worker.js': '', 'shared/real.js': 'real' });
    symlinkSync('../shared/real.js', join(dir, 'shared', 'alias.js'));
    symlinkSync('shared', join(dir, 'again'));
    const bytes = (await artifactFrom(dir)).bytes;
    expect(entries(bytes)).toEqual(['again/alias.js', 'again/real.js', 'shared/alias.js', 'shared/real.js', 'worker.js']);
    expect(fileIn(bytes, 'shared/alias.js')).toBe('real');

    symlinkSync('/etc/hostname', join(dir, 'outside.js'));
    expect((await refusal(artifactFrom(dir))).message).toMatch(/^outside\.js links outside .* \(to \/etc\/hostname\)/);
    rmSync(join(dir, 'outside.js'));
    symlinkSync('missing.js', join(dir, 'dangling.js'));
    expect((await refusal(artifactFrom(dir))).message).toMatch(/^dangling\.js is a symbolic link to nothing/);
  });

  it('needs an entry point', async () => {
    files({ 'main.js': '' });
    const err = await refusal(artifactFrom(dir));
    expect(err).toBeInstanceOf(CliError);
    expect(err.message).toContain('worker.js');
  });

  it('accepts index.js, or the main cloudwright.json names if it exists', async () => {
    files({ 'index.js': '' });
    expect(entries((await artifactFrom(dir)).bytes)).toEqual(['index.js']);

    files({ 'cloudwright.json': '{"main":"./src/app.js"}', 'src/app.js': '' });
    expect((await artifactFrom(dir)).kind).toBe('worker');

    rmSync(join(dir, 'src'), { recursive: true });
    const err = await refusal(artifactFrom(dir));
    expect(err).toBeInstanceOf(CliError);
    expect(err.message).toContain('src/app.js');
  });
});

describe('an artifact file', () => {
  it('is sent as it is', async () => {
    const zst = execFileSync('zstd', ['-c'], { input: 'not even a tar' });
    writeFileSync(join(dir, 'web.tar.zst'), zst);
    const artifact = await artifactFrom(join(dir, 'web.tar.zst'), { prebuilt: true });
    expect(artifact).toEqual({ bytes: zst, kind: 'prebuilt', files: 0 });
  });

  it('must be zstd-compressed', async () => {
    files({ 'web.tar.gz': 'plain' });
    const err = await refusal(artifactFrom(join(dir, 'web.tar.gz')));
    expect(err).toBeInstanceOf(CliError);
    expect(err.message).toContain('not zstd-compressed');
  });

  it('--prebuilt refuses a directory', async () => {
    files({ 'worker.js': '' });
    expect(await refusal(artifactFrom(dir, { prebuilt: true }))).toBeInstanceOf(UsageError);
  });
});

describe('a Next.js app', () => {
  it('packs the bundled worker, its modules and the static assets, with a default cloudwright.json', async () => {
    files({ '.open-next/assets/_next/static/x.js': 'static', 'dist/worker.js': 'worker', 'dist/chunk.mjs': 'chunk', 'dist/README.md': 'docs', 'package.json': '{}' });
    const artifact = await artifactFrom(dir);
    expect(artifact.kind).toBe('nextjs');
    expect(entries(artifact.bytes)).toEqual(['assets/_next/static/x.js', 'chunk.mjs', 'cloudwright.json', 'worker.js']);
    const config = JSON.parse(fileIn(artifact.bytes, 'cloudwright.json')) as { main: string; compatibility_flags: string[] };
    expect(config.main).toBe('worker.js');
    expect(config.compatibility_flags).toContain('nodejs_compat');
  });

  it.each([
    ['an OpenNext build without a bundled worker', { '.open-next/assets/x.js': '' }],
    ['a Next.js build without OpenNext', { '.next/BUILD_ID': '' }],
  ])('refuses %s, saying how to build it', async (_, tree) => {
    files(tree);
    const err = await refusal(artifactFrom(dir));
    expect(err).toBeInstanceOf(CliError);
    expect(err.message).toContain('opennextjs-cloudflare build');
    expect(err.message).toContain('wrangler deploy --dry-run --outdir dist');
  });
});

describe('nameFromPath', () => {
  it.each([
    ['build/web.tar.zst', 'web'],
    ['/srv/apps/my-worker/', 'my-worker'],
    ['my-worker//', 'my-worker'],
    ['shop', 'shop'],
  ])('%s → %s', (path, name) => {
    expect(nameFromPath(path)).toBe(name);
  });
});
