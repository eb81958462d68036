import { createPrivateKey } from 'node:crypto';
import { AcmeClient } from '../../acme/client.ts';
import { accountKeyOf, generateAccountKey } from '../../acme/jws.ts';
import { accountObjectKey, type StoredAccount } from '../../../src/tls/certificate-objects.ts';
import type { SealedStore } from '../../../src/tls/sealed-store.ts';

/** Where the operator orders certificates, from its configuration (operator/config.ts, CW_ACME_*). */
export interface AcmeSettings {
  readonly directoryUrl: string;
  /** PEM roots to trust for the CA's own HTTPS (a private CA; Pebble in tests and `make dev`). */
  readonly caCertificates?: string;
  readonly contact?: readonly string[];
  /** For CAs that require external account binding (ZeroSSL, Google Trust Services). */
  readonly externalAccountBinding?: { readonly keyId: string; readonly hmacKey: string };
  readonly profile?: string;
}

/**
 * The installation's ACME account: its key sealed in the bucket (one per directory URL), made by the first
 * operator that needs it (a conditional create, so two operators racing at once end with one key), and
 * registered with the CA (idempotent: the CA answers the existing account for a known key).
 */
export async function acmeAccount(settings: AcmeSettings, sealed: SealedStore): Promise<AcmeClient> {
  const key = accountObjectKey(settings.directoryUrl);
  let stored = await sealed.get<StoredAccount>(key);
  if (!stored) {
    const made = generateAccountKey();
    const candidate: StoredAccount = { directoryUrl: settings.directoryUrl, privateKeyPem: made.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
    await sealed.put(key, candidate, { ifNoneMatch: '*' });
    stored = await sealed.get<StoredAccount>(key);
    if (!stored) throw new Error('the ACME account key was written to the bucket but cannot be read back');
  }
  const client = new AcmeClient({
    directoryUrl: settings.directoryUrl,
    accountKey: accountKeyOf(createPrivateKey(stored.privateKeyPem)),
    ...(settings.caCertificates ? { caCertificates: settings.caCertificates } : {}),
  });
  await client.account({ ...(settings.contact ? { contact: settings.contact } : {}), ...(settings.externalAccountBinding ? { externalAccountBinding: settings.externalAccountBinding } : {}) });
  return client;
}
