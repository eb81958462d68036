// `cw`: runs the command line and turns every failure into one line on stderr and an exit code
// (1: the request failed; 2: the command line is wrong; 0 for --help and --version).
import { CommanderError } from 'commander';
import { CliError } from './errors.ts';
import { paint } from './output.ts';
import { buildProgram } from './program.ts';

// A reader that stops early (`cw apps list | head -1`) closes the pipe: the rest is not wanted, and cw ends quietly
// as the shell's own tools do, not with a stack trace of the failed write.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(0);
});

const program = buildProgram();
try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.exitCode = exitCodeOf(err);
}

function exitCodeOf(err: unknown): number {
  if (err instanceof CommanderError) {
    // Commander has printed its message (or the help) already.
    // Help asked for (`--help`, `cw help`) and --version are successes; everything else is a usage error.
    return err.exitCode === 0 ? 0 : 2;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${paint('red', 'error:', process.stderr)} ${message.replace(/\s*\n\s*/g, ' ')}\n`);
  if (process.env.CW_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return err instanceof CliError ? err.exitCode : 1;
}
