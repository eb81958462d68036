// Turns what the user points `cw deploy` at into the runtime's artifact (docs/runtime.md, "The artifact"): a
// `.tar.zst` file as it is, a Next.js build made with OpenNext (its bundled worker and static assets), or a
// plain worker directory. Archives are deterministic (sorted paths, fixed times and owners), so deploying the
// same files again is the same build id and the platform stores it once.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, sep } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { zstdCompressSync } from 'node:zlib';
import { create as createTar } from 'tar';
import { CliError, UsageError } from '../errors.ts';

export interface Artifact {
  bytes: Buffer;
  /** What was found: an artifact file, a Next.js (OpenNext) build or a worker directory. */
  kind: 'prebuilt' | 'nextjs' | 'worker';
  /** Files in the archive (0 for a prebuilt one, which is sent as it is). */
  files: number;
}

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
/**
 * Never packed from a worker directory, at any depth: dependencies, version control and editors' files, local
 * secrets (wrangler's `.dev.vars`, npm's credentials), macOS litter.
 */
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
/** Never packed from the directory's top: a repository's documents, which no worker imports (and the artifact refuses). */
const TOP_DOCUMENTS = /^(readme|license|licence|changelog|contributing|code_of_conduct|security)(\.[^/]*)?$|^[^/]*\.md$/i;
/** What the runtime assumes for a Next.js build without its own cloudwright.json (docs/examples/nextjs). */
const NEXT_CONFIG = { main: 'worker.js', compatibility_date: '2025-09-01', compatibility_flags: ['nodejs_compat'] };

export async function artifactFrom(path: string, options: { prebuilt?: boolean } = {}): Promise<Artifact> {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    throw new UsageError(`${path}: no such file or directory`);
  }
  if (stat.isFile()) {
    const bytes = readFileSync(path);
    if (!bytes.subarray(0, 4).equals(ZSTD_MAGIC)) throw new CliError(`${path} is not a .tar.zst artifact (not zstd-compressed); pass a directory to have cw pack it`);
    return { bytes, kind: 'prebuilt', files: 0 };
  }
  if (options.prebuilt) throw new UsageError(`--prebuilt takes an artifact file (.tar.zst), and ${path} is a directory`);
  if (existsSync(join(path, '.open-next')) || existsSync(join(path, '.next'))) return nextBuild(path);
  return workerDirectory(path);
}

async function workerDirectory(dir: string): Promise<Artifact> {
  const files = walk(dir);
  const entry = entryPoint(dir);
  if (!files.includes(entry)) {
    throw new CliError(`no entry point in ${dir}: expected ${entry} (a worker.js or index.js, or the file cloudwright.json names as main)`);
  }
  return { bytes: await pack(dir, files), kind: 'worker', files: files.length };
}

/**
 * A Next.js app built with OpenNext's Cloudflare adapter and bundled by `wrangler deploy --dry-run --outdir
 * dist`: the bundle's modules at the root, `.open-next/assets` as `assets/`, and a cloudwright.json.
 */
async function nextBuild(dir: string): Promise<Artifact> {
  const how = 'build it with `npx opennextjs-cloudflare build && npx wrangler deploy --dry-run --outdir dist` first';
  if (!existsSync(join(dir, '.open-next', 'assets'))) throw new CliError(`${dir} is a Next.js app without an OpenNext build (.open-next/assets): ${how}`);
  if (!existsSync(join(dir, 'dist', 'worker.js'))) throw new CliError(`${dir} has an OpenNext build but no bundled worker (dist/worker.js): ${how}`);
  const stage = mkdtempSync(join(tmpdir(), 'cw-deploy-'));
  try {
    for (const name of readdirSync(join(dir, 'dist'))) {
      if (/\.(js|mjs|cjs|wasm)$/.test(name)) cpSync(join(dir, 'dist', name), join(stage, name));
    }
    cpSync(join(dir, '.open-next', 'assets'), join(stage, 'assets'), { recursive: true });
    const own = join(dir, 'cloudwright.json');
    if (existsSync(own)) cpSync(own, join(stage, 'cloudwright.json'));
    else writeFileSync(join(stage, 'cloudwright.json'), `${JSON.stringify(NEXT_CONFIG)}\n`);
    const files = walk(stage);
    return { bytes: await pack(stage, files), kind: 'nextjs', files: files.length };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** `cloudwright.json`'s `main`, else `worker.js`, else `index.js` (the runtime's order). */
function entryPoint(dir: string): string {
  const config = join(dir, 'cloudwright.json');
  if (existsSync(config)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(config, 'utf8'));
    } catch (err) {
      throw new CliError(`${config} is not valid JSON: ${(err as Error).message}`);
    }
    const main = typeof parsed === 'object' && parsed !== null ? (parsed as { main?: unknown }).main : undefined;
    if (typeof main === 'string') return main.replace(/^\.\//, '');
  }
  return existsSync(join(dir, 'worker.js')) || !existsSync(join(dir, 'index.js')) ? 'worker.js' : 'index.js';
}

/**
 * Every file under `dir`, relative with `/` separators, sorted, skipped names left out. A symbolic link is
 * packed as what it points at when that is inside `dir` (the runtime refuses links in an artifact); one
 * pointing outside, or nowhere, is refused by name rather than silently left out.
 */
function walk(dir: string): string[] {
  const root = realpathSync(dir);
  const found: string[] = [];
  const visit = (current: string, seen: ReadonlySet<string>): void => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name) || SKIPPED_PREFIXES.some((p) => entry.name.startsWith(p)) || (current === dir && TOP_DOCUMENTS.test(entry.name))) continue;
      const full = join(current, entry.name);
      const path = relative(dir, full).split(sep).join('/');
      let isDirectory = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(full);
        } catch {
          throw new CliError(`${path} is a symbolic link to nothing: remove it or point it at a file inside ${dir}`);
        }
        if (target !== root && !target.startsWith(`${root}${sep}`)) throw new CliError(`${path} links outside ${dir} (to ${target}): copy the file in instead`);
        if (seen.has(target)) continue;
        isDirectory = statSync(target).isDirectory();
      }
      if (isDirectory) visit(full, new Set([...seen, realpathSync(full)]));
      else if (entry.isFile() || entry.isSymbolicLink()) found.push(path);
    }
  };
  visit(dir, new Set([root]));
  return found.sort();
}

/**
 * The tar in memory, then compressed in one call: a zstd stream may end its frame with the last chunk and
 * then add an empty frame when flushed, depending on timing, which would change the build id.
 */
async function pack(cwd: string, files: string[]): Promise<Buffer> {
  // `follow` stores what a link points at; `./` keeps node-tar from reading a name starting with @ as an archive to splice in.
  const entries = files.map((f) => (f.startsWith('@') ? `./${f}` : f));
  const tar = await buffer(createTar({ cwd, portable: true, mtime: new Date(0), noDirRecurse: true, follow: true }, entries));
  return zstdCompressSync(tar);
}

/** The app name a directory or artifact file suggests: its base name without `.tar.zst`. */
export function nameFromPath(path: string): string {
  return basename(path.replace(/[/\\]+$/, '') || '.').replace(/\.(tar\.zst|tzst)$/, '');
}
