import { MIN_SHARED_SECRET_LENGTH } from '../auth/shared-secret.ts';
import { ConfigError, type EnvReader } from './env.ts';

/**
 * CW_RUNTIME_STATUS_TOKEN, the secret cw-api presents on cw-runtime's status port to read apps' reports and
 * logs; both read it (the chart gives both pods the same Secret). Unset: absent.
 *
 * @throws ConfigError when it is shorter than {@link MIN_SHARED_SECRET_LENGTH} characters (never showing it).
 */
export function runtimeStatusToken(read: EnvReader): string | undefined {
  const token = read.optional('CW_RUNTIME_STATUS_TOKEN');
  if (token !== undefined && token.length < MIN_SHARED_SECRET_LENGTH) throw new ConfigError(`CW_RUNTIME_STATUS_TOKEN must be at least ${MIN_SHARED_SECRET_LENGTH} characters long`);
  return token;
}
