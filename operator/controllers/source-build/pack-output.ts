// Turns a build's output (the tar the builder put, which the user's command produced: untrusted) into the
// runtime's artifact, packed as `cw deploy` packs a directory (cli/src/artifact/pack.ts): the same names left
// out, the same Next.js (OpenNext) layout, the same deterministic archive, so a commit built here and the same
// directory deployed with cw are the same build id. The CLI is a package of its own and cannot share this code;
// pack-output.test.ts checks the two agree byte for byte.
import { mkdir, mkdtemp, readdir, rm, stat, writeFile, cp } from 'node:fs/promises';
import { createWriteStream, existsSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { buffer } from 'node:stream/consumers';
import { zstdCompressSync } from 'node:zlib';
import { create as createTar } from 'tar';
import { readTarStream, TarFormatError, type ByteSource } from '../../../src/app-artifacts/tar.ts';
import { DEFAULT_ARTIFACT_LIMITS } from '../../../src/app-artifacts/artifact.ts';
import { KeyedMutex } from '../../../src/collections/keyed-mutex.ts';

/** Never packed, at any depth: dependencies, version control and editors' files, local secrets, macOS litter (as cw deploy). */
const SKIPPED = new Set([
  'node_modules',
  '.git',
  '.DS_Store',
  '.cloudwright',
  '.wrangler',
  '.env',
  '.dev.vars',
  '.npmrc',
  '.gitignore',
  '.gitattributes',
  '.gitmodules',
  '.gitkeep',
  '.github',
  '.gitlab',
  '.editorconfig',
  '.vscode',
  '.idea',
]);
const SKIPPED_PREFIXES = ['._', '.env.', '.dev.vars.'];
/** Never packed from the output's top: a repository's documents (README, LICENSE, *.md), which no worker imports. */
const TOP_DOCUMENTS = /^(readme|license|licence|changelog|contributing|code_of_conduct|security)(\.[^/]*)?$|^[^/]*\.md$/i;
const NEXT_CONFIG = { main: 'worker.js', compatibility_date: '2025-09-01', compatibility_flags: ['nodejs_compat'] };

/** The output cannot be packed; the message says why in one line (the build fails with OutputInvalid). */
export class OutputInvalidError extends Error {
  override readonly name = 'OutputInvalidError';
}

export interface PackedOutput {
  /** The artifact: a deterministic `.tar.zst`. */
  readonly bytes: Buffer;
  readonly kind: 'worker' | 'nextjs';
  readonly files: number;
}

const skipped = (path: string) => TOP_DOCUMENTS.test(path) || path.split('/').some((name) => SKIPPED.has(name) || SKIPPED_PREFIXES.some((p) => name.startsWith(p)));

/**
 * What the file system answers when the output's shape does not fit what packing expects (a directory where a file
 * should be). The output is the tenant's: such a failure is the build's (OutputInvalid), never a platform failure
 * retried for ever, which kept the build Building and its slots held (review-162 F1).
 */
const SHAPE_ERRORS = new Set(['EISDIR', 'ERR_FS_EISDIR', 'ENOTDIR', 'EEXIST', 'ENAMETOOLONG', 'ELOOP']);

/**
 * One output is packed at a time in the operator: packing holds the artifact's tar (up to 256 MiB) and its compressed
 * copy in memory (its process grew ~600 MiB for an output of 250 MiB of random bytes), so two at once pass the operator's
 * 1 GiB, and the builds whose packing killed it are packed again after its restart (review-162 F10).
 */
const packing = new KeyedMutex();

/**
 * Reads the output tar (regular files only: a link or device is refused) and packs it as cw deploy would, once the
 * outputs before it are packed (`tar` is not read meanwhile).
 */
export function packOutput(tar: ByteSource, limits = DEFAULT_ARTIFACT_LIMITS): Promise<PackedOutput> {
  return packing.run('output', () => packOutputNow(tar, limits));
}

/**
 * `packOutput` of the tar `open` answers (undefined when there is none), opened once this output's turn comes: a
 * bucket's response opened before would wait unread, holding one of its client's connections (and its server's
 * patience), for as long as the outputs before it take.
 */
export function packOpenedOutput(open: () => Promise<ByteSource | undefined>, limits = DEFAULT_ARTIFACT_LIMITS): Promise<PackedOutput | undefined> {
  return packing.run('output', async () => {
    const tar = await open();
    return tar && (await packOutputNow(tar, limits));
  });
}

async function packOutputNow(tar: ByteSource, limits: typeof DEFAULT_ARTIFACT_LIMITS): Promise<PackedOutput> {
  try {
    return await packOutputIn(tar, limits);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code !== undefined && SHAPE_ERRORS.has(code)) throw new OutputInvalidError(`the output directory cannot be packed (${code})`);
    throw err;
  }
}

async function packOutputIn(tar: ByteSource, limits: typeof DEFAULT_ARTIFACT_LIMITS): Promise<PackedOutput> {
  const work = await mkdtemp(join(tmpdir(), 'cw-build-output-'));
  try {
    const dir = join(work, 'out');
    await mkdir(dir);
    let bytes = 0;
    try {
      for await (const entry of readTarStream(tar, { maxEntries: 4 * limits.maxFiles, maxPathBytes: 1024 })) {
        if (skipped(entry.path)) {
          for await (const _ of entry.content); // skipped, but read through
          continue;
        }
        bytes += entry.size;
        if (bytes > limits.maxUncompressedBytes) throw new OutputInvalidError(`the output is larger than ${limits.maxUncompressedBytes} bytes (what an artifact may unpack to)`);
        const path = join(dir, entry.path);
        await mkdir(dirname(path), { recursive: true });
        await pipeline(entry.content, createWriteStream(path));
      }
    } catch (err) {
      if (err instanceof TarFormatError) throw new OutputInvalidError(`the output directory cannot be packed: ${err.message}`);
      throw err;
    }
    if (existsSync(join(dir, '.open-next')) || existsSync(join(dir, '.next'))) return await nextBuild(dir, join(work, 'stage'));
    return await workerDirectory(dir);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function workerDirectory(dir: string): Promise<PackedOutput> {
  const files = await walk(dir);
  const entry = entryPoint(dir);
  if (!files.includes(entry)) throw new OutputInvalidError(`no entry point in the output directory: expected ${entry} (a worker.js or index.js, or the file cloudwright.json names as main)`);
  return { bytes: await pack(dir, files), kind: 'worker', files: files.length };
}

/** A Next.js app built with OpenNext and bundled into dist/: the layout cw deploy packs (docs/examples/nextjs). */
async function nextBuild(dir: string, stage: string): Promise<PackedOutput> {
  const how = 'build it with `npx opennextjs-cloudflare build && npx wrangler deploy --dry-run --outdir dist` in the build command';
  if (!existsSync(join(dir, '.open-next', 'assets'))) throw new OutputInvalidError(`the output is a Next.js app without an OpenNext build (.open-next/assets): ${how}`);
  if (!existsSync(join(dir, 'dist', 'worker.js'))) throw new OutputInvalidError(`the output has an OpenNext build but no bundled worker (dist/worker.js): ${how}`);
  await mkdir(stage);
  for (const name of await readdir(join(dir, 'dist'))) {
    if (/\.(js|mjs|cjs|wasm)$/.test(name) && (await stat(join(dir, 'dist', name))).isFile()) await cp(join(dir, 'dist', name), join(stage, name));
  }
  await cp(join(dir, '.open-next', 'assets'), join(stage, 'assets'), { recursive: true });
  const own = join(dir, 'cloudwright.json');
  if (existsSync(own) && !statSync(own).isFile()) throw new OutputInvalidError('cloudwright.json in the output is a directory, not a file');
  if (existsSync(own)) await cp(own, join(stage, 'cloudwright.json'));
  else await writeFile(join(stage, 'cloudwright.json'), `${JSON.stringify(NEXT_CONFIG)}\n`);
  const files = await walk(stage);
  return { bytes: await pack(stage, files), kind: 'nextjs', files: files.length };
}

/** `cloudwright.json`'s `main`, else `worker.js`, else `index.js` (the runtime's order). */
function entryPoint(dir: string): string {
  const config = join(dir, 'cloudwright.json');
  if (existsSync(config)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(config, 'utf8'));
    } catch (err) {
      throw new OutputInvalidError(`cloudwright.json in the output is not valid JSON: ${(err as Error).message}`);
    }
    const main = typeof parsed === 'object' && parsed !== null ? (parsed as { main?: unknown }).main : undefined;
    if (typeof main === 'string') return main.replace(/^\.\//, '');
  }
  return existsSync(join(dir, 'worker.js')) || !existsSync(join(dir, 'index.js')) ? 'worker.js' : 'index.js';
}

/** Every file under `dir` (regular files only: the output tar held no link), relative with `/`, sorted. */
async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .filter((path) => !skipped(path))
    .sort();
}

/** The tar in memory, then compressed in one call (a streamed zstd frame can end differently: another build id). */
async function pack(cwd: string, files: string[]): Promise<Buffer> {
  const entries = files.map((f) => (f.startsWith('@') ? `./${f}` : f));
  const tar = await buffer(createTar({ cwd, portable: true, mtime: new Date(0), noDirRecurse: true, follow: true }, entries));
  return zstdCompressSync(tar);
}
