// Completion in a real bash: the script `cw completion bash` prints is sourced, and its function asked what
// may follow a partial command line, as bash asks it on Tab.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const CW = fileURLToPath(new URL('../bin/cw.ts', import.meta.url));
const shim = mkdtempSync(join(tmpdir(), 'cw-completion-'));
writeFileSync(join(shim, 'cw'), `#!/bin/sh\nexec "${process.execPath}" "${CW}" "$@"\n`);
chmodSync(join(shim, 'cw'), 0o755);
afterAll(() => rmSync(shim, { recursive: true, force: true }));
/** Each case starts the CLI several times (a Node start each): seconds on two cores busy with the integration tests. */
const SPAWNS = { timeout: 30_000 };

/** What bash completes for `line` (the cursor at its end). */
function complete(line: string): string[] {
  const words = line.split(' ');
  const script = `source <(cw completion bash)
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMP_LINE='${line}'; COMP_POINT=${line.length}
_cw_completion; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync('bash', ['--norc', '-c', script], { encoding: 'utf8', env: { PATH: `${shim}:${process.env.PATH}` } });
  return out.split('\n').filter((l) => l !== '');
}

it('completes commands, subcommands and options in bash', SPAWNS, () => {
  expect(complete('cw ap')).toEqual(['apps']);
  expect(complete('cw db ')).toEqual(expect.arrayContaining(['create', 'shell', 'restore']));
  expect(complete('cw deploy --ho')).toEqual(['--hostnames']);
});

it('prints scripts for zsh and fish that call back into cw', SPAWNS, () => {
  for (const shell of ['zsh', 'fish']) {
    const script = execFileSync(process.execPath, [CW, 'completion', shell], { encoding: 'utf8' });
    expect(script).toContain('completion-server');
    expect(script).toContain(shell === 'zsh' ? 'compdef' : 'complete -f');
  }
  const refused = (() => {
    try {
      execFileSync(process.execPath, [CW, 'completion', 'tcsh'], { encoding: 'utf8', stdio: 'pipe' });
      return undefined;
    } catch (err) {
      return err as { status: number; stderr: string };
    }
  })();
  expect(refused?.status).toBe(2);
  expect(refused?.stderr).toContain('expected one of bash, zsh, fish');
});
