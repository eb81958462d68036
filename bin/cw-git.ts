#!/usr/bin/env node
import { runCli } from '../git-server/commands/main.ts';
import { streamOutput } from '../git-server/commands/stream-output.ts';

// `cw-git wal ls … | head`: a reader that stops early is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
process.exitCode = await runCli(process.argv.slice(2), { stdout: streamOutput(process.stdout), stderr: streamOutput(process.stderr), env: process.env });
