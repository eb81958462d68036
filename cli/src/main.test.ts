// cw as a process, as a shell runs it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const CW = fileURLToPath(new URL('./bin/cw.ts', import.meta.url));

it('ends quietly when the reader of its output has gone (`cw … | head`)', { timeout: 30_000 }, () => {
  // `true` reads nothing and exits before cw (a Node start) writes: the write finds the pipe closed.
  const run = spawnSync('bash', ['--norc', '-c', `"${process.execPath}" "${CW}" completion bash | true; echo "\${PIPESTATUS[0]}"`], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.stdout.trim()).toBe('0');
});
