#!/usr/bin/env node
import { runCli } from '../git-server/cli/main.ts';
import { streamOutput } from '../git-server/cli/stream-output.ts';

process.exitCode = await runCli(process.argv.slice(2), { stdout: streamOutput(process.stdout), stderr: streamOutput(process.stderr), env: process.env });
