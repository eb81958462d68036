import { ConfigError } from './env.ts';

/** Exit status of a binary that cannot start with its configuration (as `cw-git`'s usage errors). */
export const EXIT_CONFIG = 2;

/**
 * Runs a server binary's `start` (read the configuration, then start): a {@link ConfigError} is one line on
 * stderr, `<name>: <message>`, and exit status 2; any other failure one line and status 1. No stack traces:
 * the messages are written for whoever runs the binary.
 */
export function runBinary(name: string, start: () => Promise<void>): void {
  new Promise<void>((resolve) => resolve(start())).catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`${name}: ${message.split('\n')[0]}\n`);
    process.exit(err instanceof ConfigError ? EXIT_CONFIG : 1);
  });
}
