import { createSecureContext, type SecureContext } from 'node:tls';
import { certificateObjectKey, type StoredCertificate } from '../../src/tls/certificate-objects.ts';
import type { SealedStore } from '../../src/tls/sealed-store.ts';
import type { CertificateRef } from './certificate-index.ts';
import { TLS_VERSIONS } from './tls-defaults.ts';

/** Reads a certificate's chain and key, sealed in the bucket by the operator, into a TLS context. */
export function sealedCertificateLoader(store: SealedStore): (ref: CertificateRef) => Promise<SecureContext> {
  return async (ref) => {
    const stored = await store.get<StoredCertificate>(certificateObjectKey(ref.namespace, ref.name, ref.serial));
    if (!stored) throw new Error(`the bucket holds no certificate ${ref.serial} of TlsCertificate ${ref.namespace}/${ref.name}`);
    return createSecureContext({ cert: stored.chainPem, key: stored.privateKeyPem, ...TLS_VERSIONS });
  };
}
