// The user's settings and credentials: one JSON file in the config directory, mode 0600, written atomically.
// Tokens are kept per API URL, so pointing `cw` at another server never sends it the first server's token.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from './errors.ts';

export interface ServerSettings {
  /** The personal access token `cw login` obtained (`cwt_…`). */
  token?: string;
  /** The project commands use when neither `--project` nor `CW_PROJECT` names one (`cw projects use`). */
  project?: string;
  /** Query tokens of `cw db shell`/`execute`, by `<project>/<database>[:read-only]` (commands/query-token.ts). */
  query_tokens?: Record<string, QueryTokenEntry>;
  /** The repository service's URL, as the API names it (`cw git setup`). */
  git_url?: string;
  /** Git tokens `cw git credentials` made, by project (commands/git-credentials.ts). */
  git_tokens?: Record<string, GitTokenEntry>;
}

export interface GitTokenEntry {
  token: string;
  token_id: string;
  user: string;
  expires_at: string;
}

export interface QueryTokenEntry {
  url: string;
  token: string;
  expires_at: string;
}

export interface StoredConfig {
  /** The API `cw` talks to when neither `--api-url` nor `CW_API_URL` says otherwise. */
  api_url?: string;
  servers?: Record<string, ServerSettings>;
}

/** `$XDG_CONFIG_HOME/cloudwright`, else `~/.config/cloudwright`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'cloudwright');
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'config.json');
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): StoredConfig {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
    return parsed as StoredConfig;
  } catch (err) {
    throw new CliError(`${path} is not valid: ${(err as Error).message}; fix or delete it`);
  }
}

/** Writes the whole file: to a temporary file of mode 0600 first, then renamed over the old one. */
export function writeConfig(config: StoredConfig, env: NodeJS.ProcessEnv = process.env): void {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = configPath(env);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/** Reads, changes one server's settings and writes back. */
export function updateServer(apiUrl: string, change: (settings: ServerSettings) => ServerSettings, env: NodeJS.ProcessEnv = process.env): void {
  const config = readConfig(env);
  const servers = { ...config.servers };
  const next = change({ ...servers[apiUrl] });
  const empty = next.token === undefined && next.project === undefined && next.git_url === undefined;
  if (empty && Object.keys(next.query_tokens ?? {}).length === 0 && Object.keys(next.git_tokens ?? {}).length === 0) delete servers[apiUrl];
  else servers[apiUrl] = next;
  writeConfig({ ...config, servers }, env);
}
