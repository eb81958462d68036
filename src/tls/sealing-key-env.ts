import { ConfigError, type EnvReader } from '../config/env.ts';
import { SEALING_KEY_BYTES } from './sealed-store.ts';

/**
 * CW_TLS_SEALING_KEY: the key (base64 of 32 bytes) certificates' private keys are sealed with in the artifact
 * bucket; cw-operator (which writes them) and cw-runtime (which serves them) read the same Secret. Unset: absent.
 *
 * @throws ConfigError when it is not base64 of exactly 32 bytes (never showing it).
 */
export function tlsSealingKey(read: EnvReader): Buffer | undefined {
  const text = read.optional('CW_TLS_SEALING_KEY');
  if (text === undefined) return undefined;
  const key = Buffer.from(text, 'base64');
  if (key.length !== SEALING_KEY_BYTES || key.toString('base64') !== text.replace(/\s+/g, '')) {
    throw new ConfigError(`CW_TLS_SEALING_KEY must be base64 of ${SEALING_KEY_BYTES} random bytes (openssl rand -base64 32)`);
  }
  return key;
}
