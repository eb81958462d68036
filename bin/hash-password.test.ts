// `cw-api hash-password`: what an administrator runs to put a password in a user's Secret with kubectl.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { verifyPassword } from '../src/auth/passwords.ts';

const ROOT = resolve(import.meta.dirname, '..');
const NODE = existsSync(join(ROOT, '.tools/bin/node')) ? join(ROOT, '.tools/bin/node') : process.execPath;
// Each test starts a Node process and hashes with Argon2id's full cost; on a loaded CI machine that outgrows the
// unit project's 5-second default, which is about in-process code.
const SPAWNING = { timeout: 30_000 };
const run = (input: string) => spawnSync(NODE, ['bin/cw-api.ts', 'hash-password'], { cwd: ROOT, input, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });

it('prints the Argon2id hash of the password on stdin, which verifies it', SPAWNING, async () => {
  const result = run('a long passphrase here\n');
  expect(result.status).toBe(0);
  expect(await verifyPassword('a long passphrase here', result.stdout.trim())).toBe(true);
});

it('refuses a password too short in one line, exit status 2', SPAWNING, () => {
  const result = run('short\n');
  expect(result.status).toBe(2);
  expect(result.stderr).toBe('cw-api hash-password: A password needs at least 12 characters.\n');
});
