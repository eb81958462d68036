import { describe, expect, it } from 'vitest';
import { parseInvocation, seqArgument, usageLine, UsageError, type CommandSpec } from './args.ts';

const specs: CommandSpec[] = [
  { name: 'serve', summary: '', positionals: [], options: {}, json: false },
  { name: 'wal ls', summary: '', positionals: ['owner/repo'], options: { from: { type: 'string', value: 'seq', help: '' } }, json: true },
  { name: 'wal show', summary: '', positionals: ['owner/repo', 'seq'], options: {}, json: false },
  {
    name: 'wal materialize',
    summary: '',
    positionals: ['owner/repo'],
    options: { 'at-seq': { type: 'string', value: 'seq', help: '', required: true }, out: { type: 'string', value: 'dir', help: '', required: true } },
    json: true,
  },
];
const env = {};

function command(argv: string[], environment: Record<string, string> = env) {
  const parsed = parseInvocation(argv, specs, environment);
  if (parsed.kind !== 'command') throw new Error('expected a command');
  return parsed.invocation;
}

function usageError(argv: string[], environment: Record<string, string> = env): UsageError {
  try {
    parseInvocation(argv, specs, environment);
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
}

describe('parseInvocation', () => {
  it('picks one- and two-word commands and their positionals and options', () => {
    const ls = command(['wal', 'ls', 'acme/app', '--from', '7', '--json', '--config', '/etc/cw-git.yaml']);
    expect(ls.spec.name).toBe('wal ls');
    expect(ls.positionals).toEqual(['acme/app']);
    expect(ls.options.from).toBe('7');
    expect(ls.json).toBe(true);
    expect(ls.configPath).toBe('/etc/cw-git.yaml');
    expect(command(['serve', '--config=x.yaml']).configPath).toBe('x.yaml');
  });

  it('takes the config from CW_GIT_CONFIG when --config is absent, and prefers --config', () => {
    expect(command(['serve'], { CW_GIT_CONFIG: '/a.yaml' }).configPath).toBe('/a.yaml');
    expect(command(['serve', '--config', '/b.yaml'], { CW_GIT_CONFIG: '/a.yaml' }).configPath).toBe('/b.yaml');
    expect(usageError(['serve'], { CW_GIT_CONFIG: '' }).message).toBe('--config FILE is required (or set CW_GIT_CONFIG)');
  });

  it('answers help without a config', () => {
    expect(parseInvocation([], specs, env)).toEqual({ kind: 'help' });
    expect(parseInvocation(['--help'], specs, env)).toEqual({ kind: 'help' });
    const help = command(['wal', 'show', '--help']);
    expect(help.help).toBe(true);
    expect(help.configPath).toBeUndefined();
  });

  it('refuses unknown commands, options and extra or missing arguments, naming the command', () => {
    expect(usageError(['frobnicate']).message).toBe('unknown command "frobnicate"');
    expect(usageError(['wal']).message).toBe('"wal" needs a subcommand: wal ls, wal show, wal materialize');
    expect(usageError(['wal', 'rm']).message).toBe('unknown command "wal rm" (known: wal ls, wal show, wal materialize)');
    const unknown = usageError(['wal', 'ls', 'a/b', '--frm', '3', '--config', 'c']);
    expect(unknown.message).toBe('unknown option --frm');
    expect(unknown.command).toBe('wal ls');
    expect(usageError(['wal', 'ls', 'a/b', '--config', 'c', '--from']).message).toBe('--from needs a value');
    expect(usageError(['serve', '--config', 'c', '--json']).message).toBe('unknown option --json');
    expect(usageError(['wal', 'show', 'a/b', '--config', 'c']).message).toBe('missing <seq>');
    expect(usageError(['wal', 'show', 'a/b', '1', '2', '--config', 'c']).message).toBe('unexpected argument "2"');
    expect(usageError(['wal', 'materialize', 'a/b', '--out', 'd', '--config', 'c']).message).toBe('--at-seq <seq> is required');
  });

  it('escapes control characters it echoes, and bounds argument length', () => {
    expect(usageError(['\x1b[31mred']).message).toBe('unknown command "\\x1b[31mred"');
    expect(usageError(['serve', 'x'.repeat(5000)]).message).toBe('an argument is longer than 4096 characters');
  });
});

describe('seqArgument', () => {
  it('accepts canonical non-negative integers only', () => {
    expect(seqArgument('0', '--from', 'wal ls')).toBe(0);
    expect(seqArgument('42', '--from', 'wal ls')).toBe(42);
    for (const bad of ['-1', '1.5', '01', 'x', '', '99999999999999999999']) {
      expect(() => seqArgument(bad, '--from', 'wal ls')).toThrow(`--from must be a non-negative integer (a WAL seq), not "${bad}"`);
    }
  });
});

describe('usageLine', () => {
  it('shows required options bare and optional ones in brackets', () => {
    expect(usageLine(specs[3]!)).toBe('cw-git wal materialize <owner/repo> --at-seq <seq> --out <dir> [--json] --config FILE');
    expect(usageLine(specs[1]!)).toBe('cw-git wal ls <owner/repo> [--from <seq>] [--json] --config FILE');
  });
});
