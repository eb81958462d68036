// Runs the real `cw` (cli/dist, built by `make cli`) as a subprocess with a home and config directory of its
// own, and checks its `--json` output against the response schemas of the API's OpenAPI document.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from 'typebox/value';
import { expect, inject } from 'vitest';
import { repoRoot, toolPath } from './tools.ts';

export const CW_BIN = join(repoRoot, 'cli', 'dist', 'bin', 'cw.js');

export interface CwResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CwOptions {
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  cwd?: string;
  /** Which node runs it (default: the project's Node 24). */
  node?: string;
  /** Which cw entry point (default: the checkout's build). */
  bin?: string;
}

/** A user of `cw`: a home directory (and so a config directory) of their own, and an API URL. */
export interface CwUser {
  home: string;
  env: Record<string, string>;
  configFile: string;
}

export function newCwUser(apiUrl: string, env: Record<string, string> = {}): CwUser {
  const home = mkdtempSync(join(inject('stateDir'), 'cw-home-'));
  return { home, configFile: join(home, '.config', 'cloudwright', 'config.json'), env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), CW_API_URL: apiUrl, ...env } };
}

/** Runs `cw ARGS` to completion. Only PATH comes from the test process; everything else is the user's. */
export function cw(user: CwUser, args: readonly string[], options: CwOptions = {}): Promise<CwResult> {
  const bin = options.bin ?? CW_BIN;
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`make cli\``);
  return new Promise((resolve, reject) => {
    const child = spawn(options.node ?? toolPath('node'), [bin, ...args], {
      cwd: options.cwd ?? user.home,
      env: cleanEnv({ PATH: process.env.PATH, ...user.env, ...options.env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** A `cw` still running: its output so far, a way to wait for a line, to type, and its end. */
export interface RunningCw {
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  type(text: string): void;
  /** Ctrl-C, as a person stops a command that follows something. */
  interrupt(): void;
  done: Promise<CwResult>;
}

/**
 * Starts `cw ARGS` and returns at once. With `pty`, it runs under a pseudo-terminal (util-linux `script`), as
 * in a person's terminal: stdin, stdout and stderr are all the terminal, and its output reaches `output()`.
 */
export function startCw(user: CwUser, args: readonly string[], options: CwOptions & { pty?: boolean } = {}): RunningCw {
  const argv = [options.node ?? toolPath('node'), options.bin ?? CW_BIN, ...args];
  // `script` gives the terminal no size; prompts lay themselves out by it, so give it a laptop's.
  const inTerminal = `stty cols 120 rows 40; exec ${argv.map(shellQuote).join(' ')}`;
  const [command, commandArgs] = options.pty ? ['script', ['-q', '-e', '-f', '-c', inTerminal, '/dev/null']] : [argv[0] as string, argv.slice(1)];
  const child = spawn(command, commandArgs, {
    cwd: options.cwd ?? user.home,
    env: cleanEnv({ PATH: process.env.PATH, TERM: 'xterm-256color', ...user.env, ...options.env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  const changed = (): void => {
    for (const w of waiters) w();
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => ((stdout += d), changed()));
  child.stderr.setEncoding('utf8').on('data', (d: string) => ((stderr += d), changed()));
  const done = new Promise<CwResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      changed();
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
  const output = (): string => stdout + stderr;
  return {
    output,
    done,
    type: (text) => child.stdin.write(text),
    interrupt: () => child.kill('SIGINT'),
    waitFor: (pattern, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(output());
          if (match) finish(() => resolve(match));
          else if (child.exitCode !== null) finish(() => reject(new Error(`cw exited (${child.exitCode}) before printing ${pattern}: ${JSON.stringify(output())}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`cw printed no ${pattern} within ${timeoutMs} ms: ${JSON.stringify(output())}`))), timeoutMs);
        const finish = (settle: () => void): void => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      }),
  };
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function cleanEnv(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Runs `cw ARGS --json`, expects exit 0, and returns the parsed output checked against the operation's schema. */
export async function cwJson<T>(user: CwUser, args: readonly string[], operation: { method: string; path: string; status?: number }, options?: CwOptions): Promise<T> {
  const result = await cw(user, [...args, '--json'], options);
  expect(result.code, `cw ${args.join(' ')} --json: ${result.stderr}`).toBe(0);
  const value: unknown = JSON.parse(result.stdout);
  expectMatchesApiSchema(value, operation);
  return value as T;
}

/** Asserts `cw` failed with `code` and said why in one line on stderr (and nothing on stdout). */
export function expectOneLineError(result: CwResult, code: number, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(code);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

let openapi: { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>> } | undefined;

/** `value` is what the API answers `method path` with `status` (default 200), per docs/openapi.json. */
export function expectMatchesApiSchema(value: unknown, { method, path, status = 200 }: { method: string; path: string; status?: number }): void {
  openapi ??= JSON.parse(readFileSync(join(repoRoot, 'docs', 'openapi.json'), 'utf8')) as typeof openapi;
  const schema = openapi?.paths[path]?.[method.toLowerCase()]?.responses[String(status)]?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`docs/openapi.json has no ${status} JSON answer for ${method} ${path}`);
  const errors = [...Value.Errors(schema as never, value)].map((e) => `${e.instancePath || '/'} ${e.message}`);
  expect(errors, `${method} ${path}: ${JSON.stringify(value)}`).toEqual([]);
}
