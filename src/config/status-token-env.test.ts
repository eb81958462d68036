import { describe, expect, it } from 'vitest';
import { EnvReader } from './env.ts';
import { runtimeStatusToken } from './status-token-env.ts';
import { configFailure } from './testing/config-failure.ts';

describe('runtimeStatusToken', () => {
  it('reads CW_RUNTIME_STATUS_TOKEN; unset or empty is absent', () => {
    const token = 'x'.repeat(32);
    expect(runtimeStatusToken(new EnvReader({ CW_RUNTIME_STATUS_TOKEN: token }))).toBe(token);
    expect(runtimeStatusToken(new EnvReader({}))).toBeUndefined();
    expect(runtimeStatusToken(new EnvReader({ CW_RUNTIME_STATUS_TOKEN: '' }))).toBeUndefined();
  });

  it('refuses a token shorter than 32 characters, without showing it', () => {
    const message = configFailure(() => runtimeStatusToken(new EnvReader({ CW_RUNTIME_STATUS_TOKEN: 'short-secret' })));
    expect(message).toBe('CW_RUNTIME_STATUS_TOKEN must be at least 32 characters long');
  });
});
