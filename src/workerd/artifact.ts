import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { zstdDecompress } from 'node:zlib';
import { BUILD_CONFIG_FILE, parseBuildConfig, type AssetServiceConfig } from './build-config.ts';
import { ArtifactError, ArtifactTooLargeError } from './errors.ts';
import { readTar, TarFormatError, type TarFile } from './tar.ts';

const decompress = promisify(zstdDecompress);
const utf8 = new TextDecoder('utf-8', { fatal: true });
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
const MIB = 1024 * 1024;

/** Size bounds of an artifact; each one exceeded is an `ArtifactTooLargeError` (413). */
export interface ArtifactLimits {
  /** The `.tar.zst` as uploaded. */
  readonly maxCompressedBytes: number;
  /** The tar stream once decompressed (bounds memory: decompression stops there). */
  readonly maxUncompressedBytes: number;
  /** Any one file (a module or an asset). */
  readonly maxFileBytes: number;
  /** Files in the archive, modules and assets together. */
  readonly maxFiles: number;
}

export const DEFAULT_ARTIFACT_LIMITS: ArtifactLimits = {
  maxCompressedBytes: 64 * MIB,
  maxUncompressedBytes: 256 * MIB,
  maxFileBytes: 25 * MIB,
  maxFiles: 20_000,
};

/** The compatibility date of a build whose artifact does not name one. Fixed, so upgrading workerd never changes an app's behaviour. */
export const DEFAULT_COMPATIBILITY_DATE = '2025-09-01';

/** How workerd loads a module, by file extension (wrangler's default module rules). */
export type ModuleType = 'esModule' | 'commonJsModule' | 'text' | 'data' | 'wasm' | 'json';

const MODULE_TYPES: Record<string, ModuleType> = {
  '.js': 'esModule',
  '.mjs': 'esModule',
  '.cjs': 'commonJsModule',
  '.wasm': 'wasm',
  '.json': 'json',
  '.txt': 'text',
  '.html': 'text',
  '.sql': 'text',
  '.bin': 'data',
};
/** Source maps ride along in bundler output; they are accepted and not loaded. */
const IGNORED_EXTENSIONS = new Set(['.map']);
const ASSETS_DIR = 'assets/';
/** Files of the assets directory that configure serving instead of being served (as on Cloudflare). */
const ASSET_CONTROL_FILES = { _headers: 'headers', _redirects: 'redirects', '.assetsignore': 'ignore' } as const;

export interface ArtifactModule {
  /** Path in the archive; also the name other modules import it by. */
  readonly name: string;
  readonly type: ModuleType;
  readonly content: Uint8Array;
}

/** A validated build, ready to be written to disk and configured into workerd. */
export interface Artifact {
  /** `sha256:<hex>` of the compressed bytes: the content address of the upload. */
  readonly digest: string;
  readonly compressedBytes: number;
  readonly uncompressedBytes: number;
  /** Entry point module name; `modules[0]`. */
  readonly main: string;
  readonly modules: readonly ArtifactModule[];
  /** Files under `assets/`, paths relative to it; includes `_headers` and friends (workerd ignores them as assets). */
  readonly assets: readonly TarFile[];
  /** The assets service config (wrangler's field names) with the text of `_headers`, `_redirects`, `.assetsignore`. */
  readonly assetConfig: AssetServiceConfig;
  readonly compatibilityDate: string;
  readonly compatibilityFlags: readonly string[];
}

export interface ParseArtifactOptions {
  readonly limits?: Partial<ArtifactLimits>;
  /** The newest compatibility date the installed workerd supports (`workerd --version`). */
  readonly maxCompatibilityDate?: string;
  /** Used when `cloudwright.json` names none. */
  readonly defaultCompatibilityDate?: string;
}

/**
 * Reads the body of a deploy upload, refusing it (`ArtifactTooLargeError`) as soon as it passes the
 * compressed limit, so an oversized upload is never buffered whole.
 */
export async function readArtifactBody(body: AsyncIterable<Uint8Array>, limits: Partial<ArtifactLimits> = {}): Promise<Uint8Array> {
  const max = limits.maxCompressedBytes ?? DEFAULT_ARTIFACT_LIMITS.maxCompressedBytes;
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > max) throw tooLarge('compressedBytes', max);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/**
 * Decompresses and validates a `.tar.zst` artifact. Throws `ArtifactError` (400) for anything malformed
 * or unservable and `ArtifactTooLargeError` (413) past a limit; both messages are safe to show.
 */
export async function parseArtifact(compressed: Uint8Array, options: ParseArtifactOptions = {}): Promise<Artifact> {
  const limits = { ...DEFAULT_ARTIFACT_LIMITS, ...options.limits };
  if (compressed.length > limits.maxCompressedBytes) throw tooLarge('compressedBytes', limits.maxCompressedBytes);
  const tar = await decompressZstd(compressed, limits.maxUncompressedBytes);
  let files: TarFile[];
  try {
    files = readTar(tar, { maxEntries: limits.maxFiles * 2, maxPathBytes: 1024 });
  } catch (err) {
    if (err instanceof TarFormatError) throw new ArtifactError(`invalid artifact: ${err.message}`);
    throw err;
  }
  if (files.length > limits.maxFiles) throw tooLarge('files', limits.maxFiles);
  const big = files.find((f) => f.content.length > limits.maxFileBytes);
  if (big) throw tooLarge('fileBytes', limits.maxFileBytes, big.path);

  const configFile = files.find((f) => f.path === BUILD_CONFIG_FILE);
  const config = configFile ? parseBuildConfig(decodeUtf8(configFile), options.maxCompatibilityDate) : {};
  const assets: TarFile[] = [];
  const modules: ArtifactModule[] = [];
  const assetConfig: { -readonly [K in keyof AssetServiceConfig]: AssetServiceConfig[K] } = { ...config.assets };
  for (const file of files) {
    if (file === configFile) continue;
    if (file.path.startsWith(ASSETS_DIR)) {
      const path = file.path.slice(ASSETS_DIR.length);
      const control = ASSET_CONTROL_FILES[path as keyof typeof ASSET_CONTROL_FILES];
      if (control) assetConfig[control] = decodeUtf8(file);
      assets.push({ path, content: file.content });
      continue;
    }
    const ext = extension(file.path);
    if (IGNORED_EXTENSIONS.has(ext)) continue;
    const type = MODULE_TYPES[ext];
    if (!type) {
      throw new ArtifactError(`${JSON.stringify(file.path)} is not a module (${Object.keys(MODULE_TYPES).join(', ')}); put static files under assets/`);
    }
    if (type !== 'wasm' && type !== 'data') decodeUtf8(file);
    if (type === 'json') parseJsonModule(file);
    modules.push({ name: file.path, type, content: file.content });
  }

  const main = config.main ?? (modules.some((m) => m.name === 'worker.js') ? 'worker.js' : 'index.js');
  const entry = modules.find((m) => m.name === main);
  if (!entry) {
    throw new ArtifactError(
      config.main === undefined
        ? 'artifact has no entry point: add worker.js (an ES module with `export default { fetch }`) at the archive root, or name it with "main" in cloudwright.json'
        : `artifact has no entry point: cloudwright.json names main ${JSON.stringify(main)}, which is not a module in the archive`,
    );
  }
  if (entry.type !== 'esModule') throw new ArtifactError(`the entry point ${JSON.stringify(main)} must be an ES module (.js or .mjs)`);

  return {
    digest: `sha256:${createHash('sha256').update(compressed).digest('hex')}`,
    compressedBytes: compressed.length,
    uncompressedBytes: tar.length,
    main,
    modules: [entry, ...modules.filter((m) => m !== entry)],
    assets,
    assetConfig,
    compatibilityDate: config.compatibility_date ?? options.defaultCompatibilityDate ?? DEFAULT_COMPATIBILITY_DATE,
    compatibilityFlags: config.compatibility_flags ?? [],
  };
}

async function decompressZstd(compressed: Uint8Array, maxOutputLength: number): Promise<Uint8Array> {
  if (!ZSTD_MAGIC.every((b, i) => compressed[i] === b)) {
    const gzip = compressed[0] === 0x1f && compressed[1] === 0x8b;
    throw new ArtifactError(`artifact must be a zstd-compressed tar archive (.tar.zst)${gzip ? '; this is gzip data' : ''}`);
  }
  try {
    return await decompress(compressed, { maxOutputLength });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge('uncompressedBytes', maxOutputLength);
    throw new ArtifactError(`artifact is not a valid zstd stream: ${(err as Error).message}`);
  }
}

function tooLarge(limit: 'compressedBytes' | 'uncompressedBytes' | 'fileBytes' | 'files', maximum: number, path?: string): ArtifactTooLargeError {
  const detail = {
    compressedBytes: `artifact is larger than ${maximum} bytes`,
    uncompressedBytes: `artifact unpacks to more than ${maximum} bytes`,
    fileBytes: `${JSON.stringify(path)} is larger than ${maximum} bytes`,
    files: `artifact has more than ${maximum} files`,
  }[limit];
  return new ArtifactTooLargeError(limit, maximum, detail);
}

function extension(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot).toLowerCase();
}

function decodeUtf8(file: TarFile): string {
  try {
    return utf8.decode(file.content);
  } catch {
    throw new ArtifactError(`${JSON.stringify(file.path)} is not valid UTF-8`);
  }
}

function parseJsonModule(file: TarFile): void {
  try {
    JSON.parse(decodeUtf8(file));
  } catch (err) {
    if (err instanceof ArtifactError) throw err;
    throw new ArtifactError(`${JSON.stringify(file.path)} is not valid JSON`);
  }
}
