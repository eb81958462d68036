import { ArtifactError } from './errors.ts';
import type { MigrationsConfig } from './migration-files.ts';

/** The name of the optional config file at the root of an artifact. */
export const BUILD_CONFIG_FILE = 'cloudwright.json';

/** Asset serving options, named and valued as in wrangler's `assets` config. */
export interface AssetOptions {
  readonly html_handling?: 'auto-trailing-slash' | 'force-trailing-slash' | 'drop-trailing-slash' | 'none';
  readonly not_found_handling?: 'none' | '404-page' | 'single-page-application';
  /** `true`: every request reaches the worker first; a list: paths (globs, `!` negates) that do. */
  readonly run_worker_first?: boolean | readonly string[];
}

/** What workerd's assets service gets: the options plus the text of `_headers`, `_redirects` and `.assetsignore`. */
export interface AssetServiceConfig extends AssetOptions {
  readonly headers?: string;
  readonly redirects?: string;
  readonly ignore?: string;
}

/** `cloudwright.json`: every field optional. Field names follow wrangler's so existing configs carry over. */
export interface BuildConfig {
  readonly main?: string;
  readonly compatibility_date?: string;
  readonly compatibility_flags?: readonly string[];
  readonly assets?: AssetOptions;
  /** The migrations folder and the Database of the project it applies to (as wrangler's d1 `migrations_dir`). */
  readonly migrations?: MigrationsConfig;
}

const TOP_KEYS = new Set(['$schema', 'main', 'compatibility_date', 'compatibility_flags', 'assets', 'migrations']);
const MIGRATION_KEYS = new Set(['directory', 'database']);
const DIRECTORY = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;
const DATABASE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const ASSET_KEYS = new Set(['html_handling', 'not_found_handling', 'run_worker_first']);
const HTML_HANDLING = ['auto-trailing-slash', 'force-trailing-slash', 'drop-trailing-slash', 'none'];
const NOT_FOUND_HANDLING = ['none', '404-page', 'single-page-application'];
const FLAG = /^[a-z0-9_]{1,64}$/;
const MAX_FLAGS = 32;

/**
 * Parses and validates `cloudwright.json`. Unknown keys are errors (a typo must not silently change
 * nothing); the compatibility date must be a real date no later than `maxCompatibilityDate`, the newest
 * one the installed workerd supports.
 */
export function parseBuildConfig(text: string, maxCompatibilityDate?: string): BuildConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ArtifactError(`${BUILD_CONFIG_FILE} is not valid JSON: ${(err as Error).message}`);
  }
  const config = object(value, BUILD_CONFIG_FILE);
  unknownKeys(config, TOP_KEYS, BUILD_CONFIG_FILE);
  const out: { -readonly [K in keyof BuildConfig]: BuildConfig[K] } = {};
  if (config.main !== undefined) out.main = string(config.main, 'main');
  if (config.compatibility_date !== undefined) {
    out.compatibility_date = compatibilityDate(config.compatibility_date, maxCompatibilityDate);
  }
  if (config.compatibility_flags !== undefined) out.compatibility_flags = flags(config.compatibility_flags);
  if (config.assets !== undefined) out.assets = assets(config.assets);
  if (config.migrations !== undefined) out.migrations = migrations(config.migrations);
  return out;
}

function compatibilityDate(value: unknown, max: string | undefined): string {
  const date = string(value, 'compatibility_date');
  const parsed = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const valid = parsed && new Date(`${date}T00:00:00Z`).toISOString().startsWith(date);
  if (!valid) throw new ArtifactError(`${BUILD_CONFIG_FILE}: compatibility_date must be a date like 2025-09-01, not ${JSON.stringify(date)}`);
  if (max !== undefined && date > max) {
    throw new ArtifactError(`${BUILD_CONFIG_FILE}: compatibility_date ${date} is newer than the runtime supports (${max})`);
  }
  return date;
}

function flags(value: unknown): string[] {
  if (!Array.isArray(value)) throw new ArtifactError(`${BUILD_CONFIG_FILE}: compatibility_flags must be an array of strings`);
  if (value.length > MAX_FLAGS) throw new ArtifactError(`${BUILD_CONFIG_FILE}: at most ${MAX_FLAGS} compatibility_flags`);
  const out: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string' || !FLAG.test(item)) {
      throw new ArtifactError(`${BUILD_CONFIG_FILE}: compatibility flag ${JSON.stringify(item)} is not a flag name (lowercase letters, digits, _)`);
    }
    if (!out.includes(item)) out.push(item);
  }
  return out;
}

function assets(value: unknown): AssetOptions {
  const where = `${BUILD_CONFIG_FILE}: assets`;
  const config = object(value, where);
  unknownKeys(config, ASSET_KEYS, where);
  const out: { -readonly [K in keyof AssetOptions]: AssetOptions[K] } = {};
  if (config.html_handling !== undefined) {
    out.html_handling = oneOf(config.html_handling, HTML_HANDLING, `${where}.html_handling`) as AssetOptions['html_handling'];
  }
  if (config.not_found_handling !== undefined) {
    out.not_found_handling = oneOf(config.not_found_handling, NOT_FOUND_HANDLING, `${where}.not_found_handling`) as AssetOptions['not_found_handling'];
  }
  const first = config.run_worker_first;
  if (first !== undefined) {
    const ok = typeof first === 'boolean' || (Array.isArray(first) && first.length <= 100 && first.every((p) => typeof p === 'string' && p.length > 0 && p.length <= 256));
    if (!ok) throw new ArtifactError(`${where}.run_worker_first must be true, false or a list of path patterns`);
    out.run_worker_first = first as boolean | string[];
  }
  return out;
}

function migrations(value: unknown): MigrationsConfig {
  const where = `${BUILD_CONFIG_FILE}: migrations`;
  const config = object(value, where);
  unknownKeys(config, MIGRATION_KEYS, where);
  const directory = config.directory ?? 'migrations';
  if (typeof directory !== 'string' || !DIRECTORY.test(directory) || directory === 'assets' || directory.startsWith('assets/')) {
    throw new ArtifactError(`${where}.directory must be a folder of the archive outside assets/, like "migrations"`);
  }
  const database = config.database;
  if (typeof database !== 'string' || !DATABASE.test(database)) throw new ArtifactError(`${where}.database must name a database of the project (a DNS label)`);
  return { directory, database };
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ArtifactError(`${where} must be a JSON object`);
  return value as Record<string, unknown>;
}

function unknownKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>, where: string): void {
  const extra = Object.keys(value).filter((k) => !allowed.has(k));
  if (extra.length > 0) throw new ArtifactError(`${where}: unknown field ${JSON.stringify(extra[0])} (allowed: ${[...allowed].filter((k) => k !== '$schema').join(', ')})`);
}

function string(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 1024) throw new ArtifactError(`${BUILD_CONFIG_FILE}: ${field} must be a non-empty string`);
  return value;
}

function oneOf(value: unknown, allowed: readonly string[], field: string): string {
  if (typeof value !== 'string' || !allowed.includes(value)) throw new ArtifactError(`${field} must be one of ${allowed.join(', ')}`);
  return value;
}
