import { API_VERSION } from '../../../src/apis/v1alpha1/group-version.ts';
import type { AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { isAlreadyExists, type ObjectClient } from '../../../src/kube/index.ts';

/**
 * An active hostname's certificate: a TlsCertificate of the same name, owned by the AppHostname (so it goes
 * when the hostname is detached, and its finalizer revokes it), validated over HTTP-01 (the name points at the
 * runtime once it is active). The AppHostname controller writes its spec, the TlsCertificate controller the
 * rest. A TlsCertificate of that name someone else made is left alone.
 */
export async function ensureHostnameCertificate(client: ObjectClient<TlsCertificate>, h: AppHostname): Promise<void> {
  const namespace = h.metadata?.namespace ?? '';
  const name = h.metadata?.name ?? '';
  const uid = h.metadata?.uid ?? '';
  const existing = await client.get(namespace, name);
  if (existing) {
    const owned = existing.metadata?.ownerReferences?.some((ref) => ref.controller && ref.uid === uid);
    if (owned && (existing.spec.dnsNames.length !== 1 || existing.spec.dnsNames[0] !== h.spec.hostname)) {
      await client.patch(namespace, name, { spec: { dnsNames: [h.spec.hostname], challenge: 'http-01' } }, 'merge');
    }
    return;
  }
  await client
    .create({
      apiVersion: API_VERSION,
      kind: 'TlsCertificate',
      metadata: { namespace, name, ownerReferences: [{ apiVersion: API_VERSION, kind: 'AppHostname', name, uid, controller: true, blockOwnerDeletion: true }] },
      spec: { dnsNames: [h.spec.hostname], challenge: 'http-01' },
    })
    .catch((err: unknown) => {
      // Made meanwhile (another worker, a restart): the next reconcile looks at it.
      if (!isAlreadyExists(err)) throw err;
    });
}
