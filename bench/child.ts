import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Service } from '../e2e/harness/process.ts';

/**
 * Starts a server whose stdout and stderr the kernel writes straight into `logPath`. The harness's
 * `startService` pipes output through the parent instead, which would put the servers' log traffic on the
 * benchmark's own CPU budget.
 */
export function spawnToFile(opts: { name: string; command: string; args: string[]; env: NodeJS.ProcessEnv; logPath: string }): Service {
  const fd = openSync(opts.logPath, 'a');
  const child = spawn(opts.command, opts.args, { env: opts.env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name: opts.name,
    child,
    logPath: opts.logPath,
    async stop(graceMs = 5_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(graceMs).then(() => child.kill('SIGKILL'))]);
      await exited;
    },
  };
}

/** Runs `command` to completion and resolves with its stdout; rejects on a non-zero exit. */
export function runToCompletion(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${command} ${args[0] ?? ''} exited with ${code}`))));
  });
}
