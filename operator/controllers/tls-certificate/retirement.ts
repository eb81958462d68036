import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { certificateObjectKey, certificateObjectPrefix, orderKeyObjectPrefix, type StoredCertificate } from '../../../src/tls/certificate-objects.ts';
import type { SealedStore } from '../../../src/tls/sealed-store.ts';
import type { AcmeClient } from '../../acme/client.ts';
import { chainOf } from '../../acme/csr.ts';
import { AcmeProblem } from '../../acme/problem.ts';

/** RFC 5280 reason code: the certificate is no longer needed (its host name was detached). */
const CESSATION_OF_OPERATION = 5;

/**
 * What deleting a TlsCertificate does before its finalizer goes: the served certificate, if still valid, is
 * revoked (its name may be someone else's next), then its sealed key and chain and any order key are deleted.
 * Idempotent: a revoked certificate answers `alreadyRevoked`, a deleted object is deleted again.
 */
export async function retireCertificate(cert: TlsCertificate, deps: { readonly acme: () => Promise<AcmeClient>; readonly sealed: SealedStore; readonly log: Logger }): Promise<void> {
  const namespace = cert.metadata?.namespace ?? '';
  const name = cert.metadata?.name ?? '';
  const serial = cert.status?.serial;
  const notAfter = cert.status?.notAfter;
  if (serial && notAfter && Date.parse(notAfter) > Date.now()) {
    const stored = await deps.sealed.get<StoredCertificate>(certificateObjectKey(namespace, name, serial));
    const [leaf] = stored ? chainOf(stored.chainPem) : [];
    if (leaf) {
      try {
        await (await deps.acme()).revoke(new Uint8Array(leaf.rawData), CESSATION_OF_OPERATION);
        deps.log.info('revoked the certificate of a deleted TlsCertificate', { namespace, name, serial });
      } catch (err) {
        if (!refusedForGood(err)) throw err;
        // Revoking is a courtesy to the name's next holder; the key is deleted below either way. A CA that will never
        // revoke it (another CA or account since, or one that has forgotten it) held the deletion, and with it the
        // project's namespace and id, for good.
        if (!(err instanceof AcmeProblem && err.kind === 'alreadyRevoked')) {
          deps.log.warn('the CA refuses to revoke the certificate of a deleted TlsCertificate; its key is deleted anyway', { namespace, name, serial, problem: (err as AcmeProblem).describe() });
        }
      }
    }
  }
  for (const prefix of [certificateObjectPrefix(namespace, name), orderKeyObjectPrefix(namespace, name)]) {
    for (const key of await deps.sealed.keys(prefix)) await deps.sealed.delete(key);
  }
}

/** ACME problems a retry cannot change: any but a server's trouble, its rate limit or a refused nonce (RFC 8555 §6.7). */
const TRANSIENT = new Set(['serverInternal', 'rateLimited', 'badNonce']);

function refusedForGood(err: unknown): boolean {
  return err instanceof AcmeProblem && err.status >= 400 && err.status < 500 && !TRANSIENT.has(err.kind);
}
