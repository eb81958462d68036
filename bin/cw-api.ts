#!/usr/bin/env node
import { runBinary } from '../src/config/run-binary.ts';

// `cw-api hash-password` prints the Argon2id hash of the password on stdin, for an administrator who sets a
// user's password with kubectl (the Secret `user-password-<user>`, docs/console.md) rather than the API. Each
// command loads only its own modules, so hashing a password does not first load the whole API server.
if (process.argv[2] === 'hash-password') {
  const { hashPasswordFromStdin } = await import('../api/hash-password.ts');
  runBinary('cw-api hash-password', hashPasswordFromStdin);
} else {
  const [{ apiConfig }, { main }] = await Promise.all([import('../api/config.ts'), import('../api/main.ts')]);
  runBinary('cw-api', () => main(apiConfig(process.env)));
}
