import { checkAssetRules, type AssetControlFile } from './asset-rules.ts';
import { BUILD_CONFIG_FILE, parseBuildConfig, type AssetServiceConfig } from './build-config.ts';
import { ArtifactError, ArtifactTooLargeError, type ArtifactLimitName } from './errors.ts';
import { JsonSyntax, JsonSyntaxError } from './json-syntax.ts';
import { SqlFileTexts } from './migration-files.ts';
import type { BuildMigrations } from '../apis/v1alpha1/migrations.ts';
import { readTarStream, TarFormatError, type ByteSource, type TarEntry } from './tar.ts';
import { decompressZstd } from './zstd-stream.ts';

const MIB = 1024 * 1024;

/** Size bounds of an artifact; each one exceeded is an `ArtifactTooLargeError` (413). */
export interface ArtifactLimits {
  /** The `.tar.zst` as uploaded. */
  readonly maxCompressedBytes: number;
  /** The tar stream once decompressed (decompression stops there). */
  readonly maxUncompressedBytes: number;
  /** Any one file (a module or an asset). */
  readonly maxFileBytes: number;
  /** Files in the archive, modules and assets together. */
  readonly maxFiles: number;
  /**
   * The modules together, as the runtime hands them to workerd to load into the app's isolate (JSON: text
   * with its escapes, a control character counting 6 bytes; WebAssembly and data in base64, 4 bytes per 3).
   * The assets, served from disk, do not count.
   */
  readonly maxModuleBytes: number;
}

export const DEFAULT_ARTIFACT_LIMITS: ArtifactLimits = {
  maxCompressedBytes: 64 * MIB,
  maxUncompressedBytes: 256 * MIB,
  maxFileBytes: 25 * MIB,
  maxFiles: 20_000,
  maxModuleBytes: 64 * MIB,
};

/**
 * `cloudwright.json`, `assets/_headers`, `assets/_redirects` and `assets/.assetsignore` are read whole (their
 * text configures serving), so they have a bound of their own.
 */
export const MAX_CONFIG_FILE_BYTES = MIB;

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
  readonly size: number;
}

/** A file under `assets/`, its path relative to it; includes `_headers` and friends (workerd ignores them as assets). */
export interface ArtifactAsset {
  readonly path: string;
  readonly size: number;
}

/** A validated build: what it holds and how it is configured. Its files went to the {@link ArtifactSink} as they were read. */
export interface Artifact {
  /** `sha256:<hex>` of the compressed bytes: the content address of the upload. */
  readonly digest: string;
  readonly compressedBytes: number;
  readonly uncompressedBytes: number;
  /** The modules and assets together: what unpacking the build writes (source maps and `cloudwright.json` are not written). */
  readonly unpackedBytes: number;
  /** Entry point module name; `modules[0]`. */
  readonly main: string;
  readonly modules: readonly ArtifactModule[];
  readonly assets: readonly ArtifactAsset[];
  /** The assets service config (wrangler's field names) with the text of `_headers`, `_redirects`, `.assetsignore`. */
  readonly assetConfig: AssetServiceConfig;
  readonly compatibilityDate: string;
  readonly compatibilityFlags: readonly string[];
  /** The migrations `cloudwright.json` names (its `migrations`), read and checked; absent without. */
  readonly migrations?: BuildMigrations;
}

/** Where the files of an artifact go as they are read (the runtime writes them to disk; the API only checks). */
export interface ArtifactSink {
  /**
   * Takes one module or asset. `content` yields the file's bytes as they are checked, and throws from the
   * iteration if they turn out invalid (the file, and so the artifact, is then refused): read it to its end.
   */
  file(kind: 'module' | 'asset', path: string, size: number, content: ByteSource): Promise<void>;
}

/**
 * A bound on the bytes unpacked (modules and assets): a project's quota, a replica's disk. `spend` is called
 * with each file's size from its header, before its content is read, and throws to refuse it.
 */
export interface UnpackedBudget {
  spend(bytes: number): void;
}

export interface ParseArtifactOptions {
  readonly limits?: Partial<ArtifactLimits>;
  /** The newest compatibility date the installed workerd supports (`workerd --version`). */
  readonly maxCompatibilityDate?: string;
  /** Used when `cloudwright.json` names none. */
  readonly defaultCompatibilityDate?: string;
}

export interface ReadArtifactOptions extends ParseArtifactOptions {
  /** Receives each module and asset; without one they are checked and dropped. */
  readonly sink?: ArtifactSink;
  readonly budget?: UnpackedBudget;
}

/**
 * Reads, decompresses and validates a `.tar.zst` artifact as it arrives, handing each file to `options.sink`
 * as it is checked. Memory stays at the decoder's window, a chunk and the configuration files, whatever the
 * artifact unpacks to. Throws `ArtifactError` (400) for anything malformed or unservable and
 * `ArtifactTooLargeError` (413) past a limit, both with messages safe to show, and whatever `source`, the
 * sink or the budget throw. An error can come after some files went to the sink: a caller that writes them
 * keeps them aside until this resolves.
 */
export async function readArtifact(source: ByteSource, options: ReadArtifactOptions = {}): Promise<Artifact> {
  const limits = { ...DEFAULT_ARTIFACT_LIMITS, ...options.limits };
  const zstd = decompressZstd(source, limits);
  const modules: ArtifactModule[] = [];
  const assets: ArtifactAsset[] = [];
  const controls: { -readonly [K in keyof AssetServiceConfig]: AssetServiceConfig[K] } = {};
  let configText: string | undefined;
  const sqlTexts = new SqlFileTexts();
  let files = 0;
  /** What the modules cost as workerd is handed them, counted as they stream. */
  const moduleBytes = { total: 0, max: limits.maxModuleBytes };
  let unpacked = 0;
  try {
    for await (const entry of readTarStream(zstd.output, { maxEntries: limits.maxFiles * 2, maxPathBytes: 1024 })) {
      if (++files > limits.maxFiles) throw tooLarge('files', limits.maxFiles, `artifact has more than ${limits.maxFiles} files`);
      if (entry.size > limits.maxFileBytes) throw tooLarge('fileBytes', limits.maxFileBytes, `${JSON.stringify(entry.path)} is larger than ${limits.maxFileBytes} bytes`);
      if (entry.path === BUILD_CONFIG_FILE) {
        configText = await readConfigFile(entry);
        continue;
      }
      if (entry.path.startsWith(ASSETS_DIR)) {
        const path = entry.path.slice(ASSETS_DIR.length);
        unpacked = spend(unpacked, entry.size, options.budget);
        const control = ASSET_CONTROL_FILES[path as keyof typeof ASSET_CONTROL_FILES];
        let content: ByteSource = entry.content;
        if (control) {
          const text = await readConfigFile(entry);
          checkAssetRules(path as AssetControlFile, text);
          controls[control] = text;
          content = [Buffer.from(text)];
        }
        assets.push({ path, size: entry.size });
        await deliver(options.sink, 'asset', path, entry.size, content);
        continue;
      }
      const ext = extension(entry.path);
      if (IGNORED_EXTENSIONS.has(ext)) continue;
      const type = MODULE_TYPES[ext];
      if (!type) {
        throw new ArtifactError(`${JSON.stringify(entry.path)} is not a module (${Object.keys(MODULE_TYPES).join(', ')}); put static files under assets/`);
      }
      addModuleBytes(moduleBytes, type === 'wasm' || type === 'data' ? Math.ceil(entry.size / 3) * 4 : entry.size);
      unpacked = spend(unpacked, entry.size, options.budget);
      modules.push({ name: entry.path, type, size: entry.size });
      const checked = checkedModule(entry, type, moduleBytes);
      await deliver(options.sink, 'module', entry.path, entry.size, ext === '.sql' ? sqlTexts.keep(entry.path, entry.size, checked) : checked);
    }
  } catch (err) {
    if (err instanceof TarFormatError) throw new ArtifactError(`invalid artifact: ${err.message}`);
    throw err;
  }

  const config = configText === undefined ? {} : parseBuildConfig(configText, options.maxCompatibilityDate);
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
    digest: zstd.digest(),
    compressedBytes: zstd.compressedBytes(),
    uncompressedBytes: zstd.uncompressedBytes(),
    unpackedBytes: unpacked,
    main,
    modules: [entry, ...modules.filter((m) => m !== entry)],
    assets,
    assetConfig: { ...config.assets, ...controls },
    compatibilityDate: config.compatibility_date ?? options.defaultCompatibilityDate ?? DEFAULT_COMPATIBILITY_DATE,
    compatibilityFlags: config.compatibility_flags ?? [],
    ...(config.migrations ? { migrations: sqlTexts.migrations(config.migrations) } : {}),
  };
}

/** Validates a whole `.tar.zst` held in memory (`readArtifact` without a sink). */
export function parseArtifact(compressed: Uint8Array, options: ParseArtifactOptions = {}): Promise<Artifact> {
  return readArtifact([compressed], options);
}

function spend(total: number, size: number, budget: UnpackedBudget | undefined): number {
  budget?.spend(size);
  return total + size;
}

async function deliver(sink: ArtifactSink | undefined, kind: 'module' | 'asset', path: string, size: number, content: ByteSource): Promise<void> {
  if (sink) await sink.file(kind, path, size, content);
  else for await (const _ of content);
}

/** A configuration file's text, read whole: at most {@link MAX_CONFIG_FILE_BYTES}, UTF-8. */
async function readConfigFile(entry: TarEntry): Promise<string> {
  if (entry.size > MAX_CONFIG_FILE_BYTES) {
    throw tooLarge('configBytes', MAX_CONFIG_FILE_BYTES, `${JSON.stringify(entry.path)} is larger than ${MAX_CONFIG_FILE_BYTES} bytes (configuration files are read whole)`);
  }
  const chunks: Uint8Array[] = [];
  for await (const chunk of entry.content) chunks.push(chunk);
  return decodeUtf8(entry.path, Buffer.concat(chunks));
}

/**
 * A module's bytes as they stream, checked on the way: modules other than WebAssembly and data must be UTF-8,
 * and JSON modules valid JSON. The iteration throws `ArtifactError` at the first fault, or at the end.
 */
async function* checkedModule(entry: TarEntry, type: ModuleType, moduleBytes: ModuleBytes): AsyncGenerator<Uint8Array> {
  if (type === 'wasm' || type === 'data') return yield* entry.content;
  const json = type === 'json' ? new JsonSyntax() : undefined;
  // A JSON module's byte-order mark reaches the check (which refuses it, as JSON.parse does): dropped here, it passed,
  // and the module never loaded (review-165 F7).
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: json !== undefined });
  const shown = JSON.stringify(entry.path);
  try {
    for await (const chunk of entry.content) {
      const text = utf8.decode(chunk, { stream: true });
      json?.write(text);
      addModuleBytes(moduleBytes, escapesIn(chunk));
      yield chunk;
    }
    json?.write(utf8.decode());
    json?.end();
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new ArtifactError(`${shown} is not valid JSON: ${err.message}`);
    if (err instanceof TypeError && (err as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') throw new ArtifactError(`${shown} is not valid UTF-8`);
    throw err;
  }
}

interface ModuleBytes {
  total: number;
  readonly max: number;
}

function addModuleBytes(bytes: ModuleBytes, more: number): void {
  bytes.total += more;
  if (bytes.total > bytes.max) {
    throw tooLarge('moduleBytes', bytes.max, `the modules (files outside assets/) come to more than ${bytes.max} bytes as workerd loads them (text with its JSON escapes)`);
  }
}

/**
 * The bytes JSON's escapes add to text (`JSON.stringify`): 5 for a control character written `\u00XX`, 1 for
 * `\b \t \n \f \r`, `"` and `\`. Counted on the UTF-8 bytes, whose multi-byte sequences never hold these.
 */
function escapesIn(chunk: Uint8Array): number {
  let extra = 0;
  for (const byte of chunk) {
    if (byte >= 0x20) extra += byte === 0x22 || byte === 0x5c ? 1 : 0;
    else extra += byte === 0x08 || byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d ? 1 : 5;
  }
  return extra;
}

function tooLarge(limit: ArtifactLimitName, maximum: number, detail: string): ArtifactTooLargeError {
  return new ArtifactTooLargeError(limit, maximum, detail);
}

function extension(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot).toLowerCase();
}

function decodeUtf8(path: string, bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ArtifactError(`${JSON.stringify(path)} is not valid UTF-8`);
  }
}
