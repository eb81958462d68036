// Small pieces every command uses: the action wrapper that builds the Context, examples in --help, the
// confirmation prompt for destructive commands, and option parsers that turn bad input into usage errors.
import { cancel, confirm as clackConfirm, isCancel } from '@clack/prompts';
import { type Command, InvalidArgumentError } from 'commander';
import { Context } from './context.ts';
import { CliError, UsageError } from './errors.ts';

/**
 * Registers an async action that receives the Context first, then what commander passes: the command's
 * arguments, then its options.
 */
export function act<A extends unknown[]>(command: Command, run: (ctx: Context, ...args: A) => Promise<void>): Command {
  return command.action(async (...args: unknown[]) => {
    const self = args.at(-1) as Command;
    await run(new Context(self), ...(args.slice(0, -1) as A));
  });
}

/** `Examples:` after a command's help. */
export function examples(command: Command, lines: readonly string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}

/** `--json`: print the API's own answer instead of a table, for scripts. */
export function withJson(command: Command): Command {
  return command.option('--json', "print the API's JSON answer (stable field names) instead of text");
}

/** `--limit` on list commands: they fetch every page of the list unless told to stop after `n` items. */
export function withLimit(command: Command): Command {
  return command.option('--limit <n>', 'show at most n (default: all, fetched a page at a time)', intOption(1, 1_000_000));
}

/** `--yes`: skip the confirmation prompt. */
export function withYes(command: Command): Command {
  return command.option('-y, --yes', 'do not ask for confirmation');
}

/**
 * Asks before something destructive. `--yes` skips the question; without a terminal to ask on, the command
 * refuses (exit 2) rather than deciding for the user.
 */
export async function confirmOrExit(ctx: Context, question: string): Promise<void> {
  if (ctx.options.yes) return;
  if (!process.stdin.isTTY || !process.stderr.isTTY) throw new UsageError(`not confirmed: ${question} (pass --yes: there is no terminal to ask on)`);
  const answer = await clackConfirm({ message: question, initialValue: false, output: process.stderr });
  if (isCancel(answer) || !answer) {
    cancel('Cancelled: nothing was changed.', { output: process.stderr });
    throw new CliError('cancelled');
  }
}

/** `--app`, else `CW_APP`. */
export function appOf(options: { app?: string }, env: NodeJS.ProcessEnv = process.env): string {
  const app = options.app || env.CW_APP;
  if (!app) throw new UsageError('which app? pass --app APP (or set CW_APP)');
  return app;
}

/** A commander parser for a whole number within bounds. */
export function intOption(min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}.`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}.`);
    return n;
  };
}

/** A commander parser for a comma-separated list (spaces around items ignored, empty items dropped). */
export function listOption(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A commander parser that accepts only one of `choices`. */
export function choiceOption<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(choices as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${choices.join(', ')}.`);
    return value as T;
  };
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12 };

/** A commander parser for a size: bytes, or with a unit (`512MiB`, `2GiB`, `500MB`). */
export function sizeOption(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value.trim());
  const factor = SIZE_UNITS[match?.[2]?.toLowerCase() ?? 'x'];
  if (!match || factor === undefined) throw new InvalidArgumentError('expected a size such as 512MiB, 2GiB or a number of bytes.');
  return Math.round(Number(match[1]) * factor);
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** A commander parser for a duration in milliseconds: `500ms`, `5s`, `1m` (a bare number is milliseconds). */
export function durationOption(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('expected a duration such as 500ms, 5s or 1m.');
  return Math.round(Number(match[1]) * (DURATION_UNITS[match[2] ?? 'ms'] ?? 1));
}
