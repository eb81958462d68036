// Where a command's API URL, token and project come from: flag, then environment, then the config file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeConfig } from './config.ts';
import { Context, normalizeApiUrl } from './context.ts';
import { CliError, UsageError } from './errors.ts';

let home: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cw-context-test-'));
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

/** A Context for `args` with the given environment variables, and the temp dir as XDG_CONFIG_HOME. */
function context(args: string[], vars: Record<string, string> = {}): Context {
  const command = new Command().option('--api-url <u>').option('--token <t>').option('-p, --project <id>');
  command.parse(args, { from: 'user' });
  return new Context(command, { XDG_CONFIG_HOME: home, ...vars });
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('Context', () => {
  beforeEach(() => {
    writeConfig({ api_url: 'http://config.test/', servers: { 'http://config.test': { token: 'cwt_config', project: 'p-config' } } }, { XDG_CONFIG_HOME: home });
  });

  it('prefers the flag, then the environment, then the config file', async () => {
    const vars = { CW_API_URL: 'http://env.test', CW_TOKEN: 'cwt_env', CW_PROJECT: 'p-env' };
    const flagged = context(['--api-url', 'http://flag.test/', '--token', 'cwt_flag', '-p', 'p-flag'], vars);
    expect([flagged.apiUrl, flagged.token, await flagged.project()]).toEqual(['http://flag.test', 'cwt_flag', 'p-flag']);

    const fromEnv = context([], vars);
    expect([fromEnv.apiUrl, fromEnv.token, await fromEnv.project()]).toEqual(['http://env.test', 'cwt_env', 'p-env']);

    const fromConfig = context([]);
    expect([fromConfig.apiUrl, fromConfig.token, await fromConfig.project()]).toEqual(['http://config.test', 'cwt_config', 'p-config']);
  });

  it('uses a stored token only for the API URL it was stored for, trailing slash or not', () => {
    expect(context(['--api-url', 'http://config.test/']).token).toBe('cwt_config');
    const other = caught(() => context(['--api-url', 'http://other.test']).token);
    expect(other).toBeInstanceOf(CliError);
    expect(other).not.toBeInstanceOf(UsageError);
    expect((other as CliError).exitCode).toBe(1);
    expect((other as CliError).message).toContain('http://other.test');
    expect((other as CliError).message).toContain('cw login');
  });

  it('without any API URL is a usage error', () => {
    writeConfig({}, { XDG_CONFIG_HOME: home });
    const err = caught(() => context([]).apiUrl);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
  });
});

describe('normalizeApiUrl', () => {
  it('drops trailing slashes', () => {
    expect(normalizeApiUrl('https://api.example.com/')).toBe('https://api.example.com');
    expect(normalizeApiUrl('http://127.0.0.1:8080/base//')).toBe('http://127.0.0.1:8080/base');
  });

  it.each(['ftp://api.example.com', 'not a url', ''])('refuses %j', (raw) => {
    expect(() => normalizeApiUrl(raw)).toThrow(UsageError);
  });
});
