#!/usr/bin/env node
import { apiConfig } from '../api/config.ts';
import { main } from '../api/main.ts';
import { runBinary } from '../src/config/run-binary.ts';
import { hashPasswordFromStdin } from '../api/hash-password.ts';

// `cw-api hash-password` prints the Argon2id hash of the password on stdin, for an administrator who sets a
// user's password with kubectl (the Secret `user-password-<user>`, docs/console.md) rather than the API.
if (process.argv[2] === 'hash-password') runBinary('cw-api hash-password', hashPasswordFromStdin);
else runBinary('cw-api', () => main(apiConfig(process.env)));
