import { expect } from 'vitest';
import { ConfigError } from '../env.ts';

/** The message of the `ConfigError` `read` throws, checked to be one line; fails the test if it throws none. */
export function configFailure(read: () => unknown): string {
  try {
    read();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a ConfigError, but the configuration was read');
}
