import { API_VERSION } from '../../src/apis/v1alpha1/group-version.ts';
import type { TlsCertificate, TlsCertificateSpec } from '../../src/apis/v1alpha1/tls-certificate.ts';
import { isAlreadyExists, type ObjectClient } from '../../src/kube/index.ts';

/** The object a certificate is made for: deleting it deletes the certificate (whose finalizer revokes it). */
export interface CertificateOwner {
  readonly kind: 'AppHostname' | 'ProjectDomain' | 'Project';
  readonly name: string;
  readonly uid: string;
}

/**
 * Makes the TlsCertificate `namespace/name` for `owner` with `spec`, or brings the spec of the one it owns back
 * to it: the owner's controller is the one writer of that spec, the TlsCertificate controller of its status. A
 * TlsCertificate of that name someone else made (a GitOps user's) is left alone.
 */
export async function ensureOwnedCertificate(client: ObjectClient<TlsCertificate>, namespace: string, name: string, owner: CertificateOwner, spec: TlsCertificateSpec): Promise<void> {
  const existing = await client.get(namespace, name);
  if (existing) {
    const owned = existing.metadata?.ownerReferences?.some((ref) => ref.controller && ref.uid === owner.uid);
    if (owned && JSON.stringify(existing.spec) !== JSON.stringify(spec)) await client.patch(namespace, name, { spec }, 'merge');
    return;
  }
  await client
    .create({
      apiVersion: API_VERSION,
      kind: 'TlsCertificate',
      metadata: { namespace, name, ownerReferences: [{ apiVersion: API_VERSION, kind: owner.kind, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true }] },
      spec,
    })
    .catch((err: unknown) => {
      // Made meanwhile (another worker, a restart): the next reconcile looks at it.
      if (!isAlreadyExists(err)) throw err;
    });
}
