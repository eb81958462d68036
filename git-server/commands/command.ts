// The shape every `cw-git` command has: its spec (for parsing and help) and what it does.
import type { CommandSpec, Invocation } from './args.ts';
import type { CliContext } from './context.ts';

/** Where a command prints; `write` resolves once the text is accepted (so long listings respect backpressure). */
export interface Output {
  write(text: string): Promise<void>;
}

export interface Command extends CommandSpec {
  run(invocation: Invocation, context: CliContext, out: Output): Promise<void>;
}

/** Prints `value` as one line of JSON. */
export function writeJson(out: Output, value: unknown): Promise<void> {
  return out.write(`${JSON.stringify(value)}\n`);
}

/** The `<owner/repo>` positional (`parseRepoPath` checks it where it is used). */
export function repoArgument(invocation: Invocation): string {
  return invocation.positionals[0] as string;
}
