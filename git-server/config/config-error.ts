/**
 * A configuration the service cannot start with: the platform's one class (src/config/env.ts), so the
 * environment readers' errors and the file's are alike. The message is one line naming where the value came
 * from (the file or the environment variable) and the key, and never contains a secret's value: `cw-git`
 * prints it and exits 2.
 */
export { ConfigError } from '../../src/config/env.ts';

/** A value that does not fit its field; the loader prefixes where it came from and the key. */
export class FieldError extends Error {
  override readonly name = 'FieldError';
}
