import { text } from 'node:stream/consumers';
import { ConfigError } from '../src/config/env.ts';
import { hashPassword, PasswordPolicyError } from '../src/auth/passwords.ts';

/** Reads a password from stdin (one line; a trailing newline is not part of it) and prints its hash. */
export async function hashPasswordFromStdin(): Promise<void> {
  const password = (await text(process.stdin)).replace(/\r?\n$/, '');
  try {
    process.stdout.write(`${await hashPassword(password)}\n`);
  } catch (err) {
    if (err instanceof PasswordPolicyError) throw new ConfigError(err.message);
    throw err;
  }
}
