import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { artifactFrom } from '../../../cli/src/artifact/pack.ts';
import { OutputInvalidError, packOpenedOutput, packOutput } from './pack-output.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pack-output-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function files(entries: Record<string, string>): void {
  for (const [path, content] of Object.entries(entries)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/** What the builder script uploads: GNU tar of the output directory. */
const outputTar = () => [execFileSync('tar', ['-cf', '-', '-C', dir, '.'], { maxBuffer: 64 * 1024 * 1024 })];

describe('packOutput', () => {
  it('packs a worker directory byte for byte as cw deploy does, secrets, dependencies and the repository’s documents left out', async () => {
    files({
      'worker.js': 'export default { fetch() { return new Response("hi") } }',
      'lib/util.js': 'export const x = 1;',
      'public/@scoped.txt': 'at',
      '.env': 'SECRET=1',
      '.env.local': 'SECRET=2',
      'node_modules/dep/index.js': 'dep',
      'sub/.npmrc': '//registry:_authToken=x',
      'README.md': '# site',
      LICENSE: 'MIT',
      '.gitignore': 'node_modules',
      '.github/workflows/ci.yml': 'on: push',
      'assets/notes.md': 'served: assets may be any file',
    });
    const packed = await packOutput(outputTar());
    const cli = await artifactFrom(dir);
    expect(packed.kind).toBe('worker');
    expect(packed.files).toBe(4);
    expect(packed.bytes.equals(cli.bytes)).toBe(true);
  });

  it('packs a Next.js app built with OpenNext in the runtime’s layout, as cw deploy does', async () => {
    files({
      '.next/BUILD_ID': 'x',
      '.open-next/assets/_next/static/app.js': 'asset',
      '.open-next/assets/favicon.ico': 'ico',
      'dist/worker.js': 'export default {}',
      'dist/chunk.wasm': 'wasm',
      'dist/README.md': 'not a module',
      'package.json': '{}',
    });
    const packed = await packOutput(outputTar());
    expect(packed.kind).toBe('nextjs');
    expect(packed.bytes.equals((await artifactFrom(dir)).bytes)).toBe(true);
  });

  it('refuses an output with a symbolic link, naming it', async () => {
    files({ 'worker.js': 'export default {}' });
    symlinkSync('/etc/passwd', join(dir, 'passwd'));
    await expect(packOutput(outputTar())).rejects.toThrow(OutputInvalidError);
    await expect(packOutput(outputTar())).rejects.toThrow(/passwd/);
  });

  it('says what is missing: no entry point, or a Next.js app without its OpenNext build', async () => {
    files({ 'README.md': 'hi' });
    await expect(packOutput(outputTar())).rejects.toThrow('no entry point in the output directory: expected worker.js');
    files({ '.next/BUILD_ID': 'x' });
    await expect(packOutput(outputTar())).rejects.toThrow(/Next.js app without an OpenNext build/);
  });

  it('refuses a Next.js output whose cloudwright.json is a directory, as the output’s failure (a thrown file-system error kept the build running for ever)', async () => {
    files({ '.next/BUILD_ID': 'x', '.open-next/assets/a.js': 'a', 'dist/worker.js': 'export default {}', 'cloudwright.json/x': '{}' });
    await expect(packOutput(outputTar())).rejects.toThrow(new OutputInvalidError('cloudwright.json in the output is a directory, not a file'));
  });

  it('packs one output at a time, not reading the next one meanwhile (packing holds an artifact in memory: two at once pass the operator’s limit)', async () => {
    files({ 'worker.js': 'export default {}' });
    const whole = Buffer.concat(outputTar());
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    async function* first() {
      yield whole.subarray(0, 512);
      await held;
      yield whole.subarray(512);
    }
    let secondRead = false;
    async function* second() {
      secondRead = true;
      yield whole;
    }
    const packed = [packOutput(first()), packOutput(second())];
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(secondRead).toBe(false);
    release();
    expect((await Promise.all(packed)).map((p) => p.kind)).toEqual(['worker', 'worker']);
  });

  it('opens an output only when its turn to be packed comes, not to wait unread meanwhile (review-167 F6)', async () => {
    files({ 'worker.js': 'export default {}' });
    const whole = Buffer.concat(outputTar());
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let reading = () => {};
    const firstRead = new Promise<void>((resolve) => (reading = resolve));
    async function* first() {
      reading();
      await held;
      yield whole;
    }
    let secondOpened = false;
    const packed = [
      packOpenedOutput(() => Promise.resolve(first())),
      packOpenedOutput(() => {
        secondOpened = true;
        return Promise.resolve([whole]);
      }),
      packOpenedOutput(() => Promise.resolve(undefined)),
    ];
    await firstRead;
    expect(secondOpened).toBe(false);
    release();
    expect((await Promise.all(packed)).map((p) => p?.kind)).toEqual(['worker', 'worker', undefined]);
    expect(secondOpened).toBe(true);
  });

  it('refuses an output larger than an artifact may unpack to', async () => {
    files({ 'worker.js': 'x'.repeat(2000), 'big.bin': 'y'.repeat(5000) });
    const limits = { maxCompressedBytes: 1e6, maxUncompressedBytes: 4096, maxFileBytes: 1e6, maxFiles: 100, maxModuleBytes: 1e6 };
    await expect(packOutput(outputTar(), limits)).rejects.toThrow('the output is larger than 4096 bytes');
  });
});
