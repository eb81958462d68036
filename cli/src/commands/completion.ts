// Shell completion for bash, zsh and fish. @pnpm/tabtab provides the shell scripts; they call back into
// `cw completion-server`, which answers from commander's own command tree, so completion can never list a
// command or option that does not exist.
import tabtab from '@pnpm/tabtab';
import type { Command, Option } from 'commander';
import { choiceOption, examples } from '../command-kit.ts';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

export function registerCompletion(program: Command): void {
  examples(
    program
      .command('completion')
      .argument('<shell>', SHELLS.join(', '), choiceOption(SHELLS))
      .description('Print the completion script for your shell')
      .action(async (shell: (typeof SHELLS)[number]) => {
        process.stdout.write(await tabtab.getCompletionScript({ name: 'cw', completer: 'cw', shell }));
      }),
    ['cw completion bash >> ~/.bashrc', 'cw completion zsh > "${fpath[1]}/_cw"', 'cw completion fish > ~/.config/fish/completions/cw.fish'],
  );
  program
    .command('completion-server', { hidden: true })
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      const shell = SHELLS.find((s) => s === process.env.SHELL) ?? 'bash';
      const line = process.env.COMP_LINE ?? '';
      const point = Number(process.env.COMP_POINT ?? line.length);
      tabtab.log(completions(program, line.slice(0, Number.isNaN(point) ? line.length : point)), shell);
    });
}

/** What may come next on `partial` (the command line up to the cursor): subcommands, or options after a `-`. */
export function completions(program: Command, partial: string): { name: string; description: string }[] {
  const words = partial.split(/\s+/).slice(1);
  const current = words.pop() ?? '';
  let command = program;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (word.startsWith('-')) {
      if (!word.includes('=') && optionOf(command, word)?.required) i++;
      continue;
    }
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) command = sub;
  }
  const candidates = current.startsWith('-')
    ? [...command.options, ...(command === program ? [] : program.options)].filter((o) => !o.hidden && o.long).map((o) => ({ name: o.long as string, description: o.description }))
    : command.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden).map((c) => ({ name: c.name(), description: c.description() }));
  return candidates.filter((c) => c.name.startsWith(current));
}

function optionOf(command: Command, flag: string): Option | undefined {
  let cursor: Command | null = command;
  while (cursor) {
    const found = cursor.options.find((o) => o.long === flag || o.short === flag);
    if (found) return found;
    cursor = cursor.parent;
  }
  return undefined;
}
