import { ConfigError, type EnvReader } from '../../src/config/env.ts';
import { tlsSealingKey } from '../../src/tls/sealing-key-env.ts';
import { DEFAULT_TLS_CACHE } from './context-cache.ts';

/** The HTTPS listener's settings (docs/runtime.md, "HTTPS"). */
export interface HttpsConfig {
  readonly port: number;
  readonly host: string;
  /** The key certificates are sealed with in the bucket (CW_TLS_SEALING_KEY). */
  readonly sealingKey: Buffer;
  /** Most TLS contexts held in memory (CW_RUNTIME_TLS_CACHE). */
  readonly cacheSize: number;
}

/**
 * CW_RUNTIME_HTTPS_PORT (absent: no HTTPS listener, as when an ingress terminates TLS), CW_RUNTIME_HTTPS_HOST
 * (default: the HTTP entry point's host), CW_RUNTIME_TLS_CACHE, and CW_TLS_SEALING_KEY, which an HTTPS listener
 * cannot do without.
 *
 * @throws ConfigError naming the first variable with a bad value, or the missing sealing key.
 */
export function httpsConfig(read: EnvReader, entryHost: string): HttpsConfig | undefined {
  if (read.optional('CW_RUNTIME_HTTPS_PORT') === undefined) return undefined;
  const port = read.port('CW_RUNTIME_HTTPS_PORT', 0);
  const sealingKey = tlsSealingKey(read);
  if (!sealingKey) {
    throw new ConfigError(
      'CW_RUNTIME_HTTPS_PORT is set but CW_TLS_SEALING_KEY is not: the HTTPS listener reads certificates sealed with that key (the Secret cloudwright-tls-sealing, key `key`, as the operator has it)',
    );
  }
  return Object.freeze({
    port,
    host: read.string('CW_RUNTIME_HTTPS_HOST', entryHost),
    sealingKey,
    cacheSize: read.integer('CW_RUNTIME_TLS_CACHE', DEFAULT_TLS_CACHE, { min: 1, max: 1_000_000 }),
  });
}
