// The config file: where it lives, its permissions, per-server settings and how a broken file is reported.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configDir, configPath, readConfig, updateServer, writeConfig } from './config.ts';
import { CliError } from './errors.ts';

let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cw-config-test-'));
  env = { XDG_CONFIG_HOME: home };
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('config', () => {
  it('lives under an absolute XDG_CONFIG_HOME, else under ~/.config', () => {
    expect(configDir(env)).toBe(join(home, 'cloudwright'));
    expect(configPath(env)).toBe(join(home, 'cloudwright', 'config.json'));
    expect(configDir({})).toBe(join(homedir(), '.config', 'cloudwright'));
    expect(configDir({ XDG_CONFIG_HOME: 'relative/dir' })).toBe(join(homedir(), '.config', 'cloudwright'));
  });

  it('is written with mode 0600 in a directory of mode 0700', () => {
    writeConfig({ api_url: 'http://a.test' }, env);
    expect(statSync(configDir(env)).mode & 0o777).toBe(0o700);
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configPath(env), 'utf8'))).toEqual({ api_url: 'http://a.test' });
  });

  it('keeps settings per API URL and drops a server with neither token nor project', () => {
    updateServer('http://a.test', (s) => ({ ...s, token: 'cwt_a' }), env);
    updateServer('http://b.test', (s) => ({ ...s, token: 'cwt_b' }), env);
    updateServer('http://a.test', (s) => ({ ...s, project: 'p1' }), env);
    expect(readConfig(env).servers).toEqual({ 'http://a.test': { token: 'cwt_a', project: 'p1' }, 'http://b.test': { token: 'cwt_b' } });

    updateServer('http://b.test', (s) => ({ ...s, token: undefined }), env);
    updateServer('http://a.test', (s) => ({ ...s, token: undefined }), env);
    expect(readConfig(env).servers).toEqual({ 'http://a.test': { project: 'p1' } });
  });

  it('reads a missing file as empty', () => {
    expect(readConfig(env)).toEqual({});
  });

  it.each([
    ['invalid JSON', '{"api_url":'],
    ['a JSON array', '[]'],
  ])('refuses %s, naming the file', (_, text) => {
    mkdirSync(configDir(env), { recursive: true });
    writeFileSync(configPath(env), text);
    expect(() => readConfig(env)).toThrow(CliError);
    expect(() => readConfig(env)).toThrow(configPath(env));
  });
});
