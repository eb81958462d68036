// `cw-git`'s entry point: parse, run one command, and turn any failure into one line on stderr and an exit
// status (0 done, 1 failed, 2 the invocation was wrong).
import { PublicError } from '../../src/errors.ts';
import { ConfigError } from '../config/index.ts';
import { parseInvocation, printable, usageLine, UsageError, type CommandSpec } from './args.ts';
import type { Command, Output } from './command.ts';
import { CliContext } from './context.ts';
import { repoInfo } from './repo-info.ts';
import { serveCommand } from './serve-command.ts';
import { tokenCommand } from './token.ts';
import { walMaterialize } from './materialize.ts';
import { walLs, walPending, walShow } from './wal-commands.ts';

export const COMMANDS: readonly Command[] = [serveCommand, walPending, walLs, walShow, walMaterialize, repoInfo, tokenCommand];

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export interface CliIo {
  readonly stdout: Output;
  readonly stderr: Output;
  readonly env: NodeJS.ProcessEnv;
}

/** Runs `cw-git argv...`; resolves with the exit status (a started `serve` keeps running after it resolves). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let context: CliContext | undefined;
  let command = '';
  try {
    const parsed = parseInvocation(argv, COMMANDS, io.env);
    if (parsed.kind === 'help') {
      // Asked for: stdout and success. No command at all: a usage error, with the help on stderr.
      if (argv.length === 0) return await io.stderr.write(topHelp(COMMANDS)).then(() => EXIT_USAGE);
      await io.stdout.write(topHelp(COMMANDS));
      return EXIT_OK;
    }
    const { invocation } = parsed;
    command = invocation.spec.name;
    if (invocation.help) {
      await io.stdout.write(commandHelp(invocation.spec));
      return EXIT_OK;
    }
    context = CliContext.load(invocation.configPath as string, io.env);
    await (invocation.spec as Command).run(invocation, context, io.stdout);
    if (command !== 'serve') context.close();
    return EXIT_OK;
  } catch (err) {
    context?.close();
    const { message, status } = describeFailure(err, command);
    await io.stderr.write(`cw-git: ${message}\n`);
    return status;
  }
}

/** The one line and exit status of a failure. Only messages meant for people are shown (no stack, no config values). */
export function describeFailure(err: unknown, command: string): { message: string; status: number } {
  if (err instanceof UsageError) {
    const help = err.command || command;
    return { message: `${err.message} (see: cw-git ${help ? `${help} ` : ''}--help)`, status: EXIT_USAGE };
  }
  const message = printable(err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  // A wrong name or seq is the invocation's fault: the repository or entry asked for does not exist.
  if (err instanceof ConfigError) return { message, status: EXIT_USAGE };
  if (err instanceof PublicError && (err.status === 400 || err.status === 404)) return { message, status: EXIT_USAGE };
  return { message, status: EXIT_FAILED };
}

export function topHelp(commands: readonly CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    'cw-git: the Cloudwright repository service and its admin commands',
    '',
    'usage: cw-git <command> [arguments] --config FILE      (CW_GIT_CONFIG when --config is absent)',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    '`cw-git <command> --help` shows its arguments. Exit status: 0 done; 1 failed (object store, git);',
    '2 the invocation was wrong (usage, configuration, an unknown repository or seq).',
    '',
  ].join('\n');
}

export function commandHelp(spec: CommandSpec): string {
  const lines = [`usage: ${usageLine(spec)}`, '', spec.summary];
  if (spec.details) lines.push('', spec.details);
  const options: [string, string][] = Object.entries(spec.options).map(([name, o]) => [o.type === 'string' ? `--${name} <${o.value}>` : `--${name}`, o.help]);
  if (spec.json) options.push(['--json', 'print JSON (lists: one object per line)']);
  options.push(['--config FILE', 'the service configuration (default: $CW_GIT_CONFIG)']);
  const width = Math.max(...options.map(([flag]) => flag.length)) + 2;
  lines.push('', 'options:', ...options.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`), '');
  return lines.join('\n');
}
