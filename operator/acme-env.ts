import { readFileSync } from 'node:fs';
import { ConfigError, type EnvReader } from '../src/config/env.ts';
import { tlsSealingKey } from '../src/tls/sealing-key-env.ts';
import type { AcmeSettings } from './controllers/tls-certificate/acme-account.ts';

/** Certificates for every host: where they are ordered and how keys are sealed (operator/config.ts's `tls`). */
export interface TlsSettings {
  readonly acme: AcmeSettings;
  readonly sealingKey: Buffer;
  /** cw-runtime's HTTP entry point as the operator reaches it, for the HTTP-01 self-check; absent: none. */
  readonly http01SelfCheckUrl?: string;
  readonly ordersPerHour: number;
  /**
   * The hosted zone of CW_RUNTIME_BASE_DOMAIN at the DNS provider (CW_TLS_BASE_ZONE_ID): each project then gets a
   * wildcard certificate for its apps' default hosts (`*.<project>.<base>`) over DNS-01 there; absent: none.
   */
  readonly baseZoneId?: string;
}

/**
 * CW_ACME_DIRECTORY_URL (the CA; unset: no certificates), CW_ACME_CA_FILE (PEM roots for the CA's own HTTPS, a
 * private CA's), CW_ACME_EMAIL (comma-separated contacts), CW_ACME_EAB_KID with CW_ACME_EAB_HMAC_KEY (external
 * account binding), CW_ACME_PROFILE, CW_ACME_ORDERS_PER_HOUR (default 100), CW_ACME_HTTP01_SELF_CHECK_URL,
 * CW_TLS_BASE_ZONE_ID, and
 * CW_TLS_SEALING_KEY, which a directory needs.
 *
 * @throws ConfigError naming the first variable with a bad value, or a directory without a sealing key.
 */
export function tlsSettingsFromEnv(read: EnvReader): TlsSettings | undefined {
  const directoryUrl = read.url('CW_ACME_DIRECTORY_URL');
  const sealingKey = tlsSealingKey(read);
  const caFile = read.optional('CW_ACME_CA_FILE');
  const contact = read.list('CW_ACME_EMAIL', { valid: (text) => /^[^@\s,]+@[^@\s,]+$/.test(text), expects: 'a comma-separated list of email addresses' });
  const eabKid = read.optional('CW_ACME_EAB_KID');
  const eabHmac = read.optional('CW_ACME_EAB_HMAC_KEY');
  const profile = read.matching('CW_ACME_PROFILE', undefined, (text) => /^[a-zA-Z0-9._-]{1,64}$/.test(text), 'an ACME profile name (such as classic or shortlived)');
  const ordersPerHour = read.integer('CW_ACME_ORDERS_PER_HOUR', 100, { min: 1, max: 100_000 });
  const selfCheck = read.url('CW_ACME_HTTP01_SELF_CHECK_URL');
  const baseZoneId = read.matching('CW_TLS_BASE_ZONE_ID', undefined, (text) => /^[A-Za-z0-9/_-]{1,64}$/.test(text), 'a hosted zone id (such as Z0123456789ABC)');
  if (!directoryUrl) return undefined;
  if (!sealingKey) throw new ConfigError('CW_ACME_DIRECTORY_URL needs CW_TLS_SEALING_KEY (the key certificate keys are sealed with in the bucket)');
  if ((eabKid === undefined) !== (eabHmac === undefined)) throw new ConfigError('CW_ACME_EAB_KID and CW_ACME_EAB_HMAC_KEY go together');
  let caCertificates: string | undefined;
  if (caFile !== undefined) {
    try {
      caCertificates = readFileSync(caFile, 'utf8');
    } catch (err) {
      throw new ConfigError(`CW_ACME_CA_FILE cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)} (${caFile})`);
    }
    if (!caCertificates.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`CW_ACME_CA_FILE holds no PEM certificate (${caFile})`);
  }
  return Object.freeze({
    acme: Object.freeze({
      directoryUrl,
      ...(caCertificates ? { caCertificates } : {}),
      ...(contact.length > 0 ? { contact: contact.map((email) => `mailto:${email}`) } : {}),
      ...(eabKid && eabHmac ? { externalAccountBinding: { keyId: eabKid, hmacKey: eabHmac } } : {}),
      ...(profile ? { profile } : {}),
    }),
    sealingKey,
    ...(selfCheck ? { http01SelfCheckUrl: selfCheck } : {}),
    ordersPerHour,
    ...(baseZoneId ? { baseZoneId } : {}),
  });
}
