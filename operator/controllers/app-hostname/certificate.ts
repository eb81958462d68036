import type { AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import type { ObjectClient } from '../../../src/kube/index.ts';
import { ensureOwnedCertificate } from '../owned-certificate.ts';

/**
 * An active hostname's certificate: a TlsCertificate of the same name, owned by the AppHostname (so it goes when
 * the hostname is detached, and its finalizer revokes it), validated over HTTP-01 (the name points at the runtime
 * once it is active).
 */
export function ensureHostnameCertificate(client: ObjectClient<TlsCertificate>, h: AppHostname): Promise<void> {
  const name = h.metadata?.name ?? '';
  return ensureOwnedCertificate(client, h.metadata?.namespace ?? '', name, { kind: 'AppHostname', name, uid: h.metadata?.uid ?? '' }, { dnsNames: [h.spec.hostname], challenge: 'http-01' });
}
