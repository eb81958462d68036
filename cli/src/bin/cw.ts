#!/usr/bin/env node
// Checks the Node version before loading anything: an older Node fails on imports it lacks (zstd in
// node:zlib) with a stack trace instead of a sentence.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 15)) {
  process.stderr.write(`error: cw needs Node.js 22.15 or newer; this is ${process.version} (${process.execPath})\n`);
  process.exit(1);
}
await import('../main.ts');
