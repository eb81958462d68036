// Shell completion answers from the real command tree: subcommands, then options (the command's and the global ones).
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../program.ts';
import { completions } from './completion.ts';

const program = buildProgram();
const names = (partial: string): string[] => completions(program, partial).map((c) => c.name);

describe('completions', () => {
  it('lists the top-level commands, not the hidden completion server', () => {
    const top = names('cw ');
    expect(top).toEqual(expect.arrayContaining(['login', 'projects', 'apps', 'deploy', 'env', 'domains', 'db', 'tokens', 'completion']));
    expect(top).not.toContain('completion-server');
  });

  it('completes a command by its prefix', () => {
    expect(names('cw ap')).toEqual(['apps']);
  });

  it("lists a group's subcommands", () => {
    expect(names('cw apps ')).toEqual(['ls', 'create', 'get', 'update', 'rm', 'connect', 'disconnect', 'source', 'bind-db', 'unbind-db', 'bindings', 'history']);
    expect(names('cw builds ')).toEqual(['ls', 'logs', 'cancel']);
  });

  it("completes an option after a '-'", () => {
    expect(names('cw deploy --ho')).toEqual(['--hostnames']);
    expect(names('cw deploy --app web --')).toEqual(expect.arrayContaining(['--app', '--hostnames', '--json', '--project', '--api-url']));
  });

  it("skips an option's value on the way to the command", () => {
    expect(names('cw --project p apps l')).toEqual(['ls']);
    expect(names('cw -p apps apps l')).toEqual(['ls']);
    expect(names('cw --project=p apps l')).toEqual(['ls']);
  });
});
