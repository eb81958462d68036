// Command-line parsing for `cw-git`: which command, its positionals and options, and the usage errors (exit 2)
// a mistyped invocation gets. Pure; the commands themselves are in commands.ts.
import { parseArgs } from 'node:util';
import { parseSeq } from '../../src/repo-store/seq.ts';

/** A mistake in the invocation: printed as one line with a pointer to the help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command whose help to point at (`wal ls`), or '' for the top-level help. */
  readonly command: string;
  constructor(message: string, command = '') {
    super(message);
    this.command = command;
  }
}

export type OptionSpec = { readonly type: 'string'; readonly value: string; readonly help: string; readonly required?: boolean } | { readonly type: 'boolean'; readonly help: string };

/** What a command accepts; `--config`, `--help` (and `--json` where `json` is set) are added to every one. */
export interface CommandSpec {
  /** `wal ls` */
  readonly name: string;
  readonly summary: string;
  /** Positional names in order, e.g. `['owner/repo', 'seq']`; all required. */
  readonly positionals: readonly string[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Whether the command has a `--json` form. */
  readonly json: boolean;
  /** Paragraphs of help after the usage line. */
  readonly details?: string;
}

export interface Invocation {
  readonly spec: CommandSpec;
  readonly positionals: readonly string[];
  readonly options: Readonly<Record<string, string | boolean | undefined>>;
  readonly json: boolean;
  readonly help: boolean;
  /** From `--config`, else `CW_GIT_CONFIG`. Undefined only with `help`. */
  readonly configPath: string | undefined;
}

/** The top-level request: help, or one command. */
export type Parsed = { readonly kind: 'help' } | { readonly kind: 'command'; readonly invocation: Invocation };

/** Longest argument accepted; nothing a person types comes close, and it bounds what an error can echo. */
const MAX_ARG_LENGTH = 4096;

/** The usage line of a command: `cw-git wal ls <owner/repo> [--from <seq>] [--json] --config FILE`. */
export function usageLine(spec: CommandSpec): string {
  const opts = Object.entries(spec.options).map(([name, o]) => {
    if (o.type === 'boolean') return `[--${name}]`;
    return o.required ? `--${name} <${o.value}>` : `[--${name} <${o.value}>]`;
  });
  return ['cw-git', spec.name, ...spec.positionals.map((p) => `<${p}>`), ...opts, ...(spec.json ? ['[--json]'] : []), '--config FILE'].join(' ');
}

/**
 * Picks the command `argv` names (one or two words: `token`, `wal ls`) and parses the rest against its spec.
 * Throws `UsageError` for an unknown command or option, a missing value or positional, or a missing config.
 */
export function parseInvocation(argv: readonly string[], specs: readonly CommandSpec[], env: Readonly<Record<string, string | undefined>>): Parsed {
  const tooLong = argv.find((a) => a.length > MAX_ARG_LENGTH);
  if (tooLong !== undefined) throw new UsageError(`an argument is longer than ${MAX_ARG_LENGTH} characters`);
  const [first, second] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') return { kind: 'help' };
  const spec = specs.find((s) => s.name === first) ?? specs.find((s) => s.name === `${first} ${second}`);
  if (!spec) {
    const group = specs.filter((s) => s.name.startsWith(`${first} `)).map((s) => s.name);
    if (group.length > 0)
      throw new UsageError(second === undefined || second.startsWith('-') ? `"${first}" needs a subcommand: ${group.join(', ')}` : `unknown command "${first} ${second}" (known: ${group.join(', ')})`);
    throw new UsageError(`unknown command "${printable(first)}"`);
  }
  const rest = argv.slice(spec.name.split(' ').length);
  const options = {
    config: { type: 'string' as const },
    help: { type: 'boolean' as const, short: 'h' },
    ...(spec.json ? { json: { type: 'boolean' as const } } : {}),
    ...Object.fromEntries(Object.entries(spec.options).map(([name, o]) => [name, { type: o.type }])),
  };
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof options; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(parseArgsMessage(err), spec.name);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const help = values.help === true;
  const configPath = (values.config as string | undefined) ?? nonEmpty(env.CW_GIT_CONFIG);
  if (!help) {
    if (parsed.positionals.length < spec.positionals.length) throw new UsageError(`missing <${spec.positionals[parsed.positionals.length]}>`, spec.name);
    if (parsed.positionals.length > spec.positionals.length) throw new UsageError(`unexpected argument "${printable(parsed.positionals[spec.positionals.length] ?? '')}"`, spec.name);
    for (const [name, o] of Object.entries(spec.options)) {
      if (o.type === 'string' && o.required && !values[name]) throw new UsageError(`--${name} <${o.value}> is required`, spec.name);
    }
    if (configPath === undefined) throw new UsageError('--config FILE is required (or set CW_GIT_CONFIG)', spec.name);
  }
  return { kind: 'command', invocation: { spec, positionals: parsed.positionals, options: values, json: values.json === true, help, configPath } };
}

/** A seq given on the command line (`--from`, `--at-seq`, `<seq>`): a canonical non-negative integer. */
export function seqArgument(text: string, what: string, command: string): number {
  const seq = parseSeq(text);
  if (seq === undefined) throw new UsageError(`${what} must be a non-negative integer (a WAL seq), not "${printable(text)}"`, command);
  return seq;
}

/** `text` with control characters escaped, so nothing echoed to a terminal can drive it. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** node:util's parse errors, shortened to what the person typed wrong. */
function parseArgsMessage(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const option = /'(-[^']*)'/.exec(e.message ?? '')?.[1]?.split(/[ ,]/)[0];
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${printable(option ?? '')}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /argument missing/.test(e.message ?? '') ? `${printable(option ?? 'an option')} needs a value` : `${printable(option ?? 'an option')} takes no value`;
    default:
      return printable(e.message ?? String(err));
  }
}
