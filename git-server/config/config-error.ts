/**
 * A configuration the service cannot start with. The message is one line naming where the value came from
 * (the file or the environment variable) and the key, and never contains a secret's value: `cw-git` prints
 * it and exits non-zero.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** A value that does not fit its field; the loader prefixes where it came from and the key. */
export class FieldError extends Error {
  override readonly name = 'FieldError';
}
