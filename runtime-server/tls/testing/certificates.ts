import type { TlsCertificate, TlsCertificateStatus } from '../../../src/apis/v1alpha1/tls-certificate.ts';

/** A TlsCertificate as the operator leaves it: `status` naming the served certificate (or challenges). */
export function tlsCertificate(namespace: string, name: string, dnsNames: readonly string[], status: TlsCertificateStatus = {}): TlsCertificate {
  return {
    apiVersion: 'cloudwright.dev/v1alpha1',
    kind: 'TlsCertificate',
    metadata: { namespace, name },
    spec: { dnsNames: [...dnsNames] },
    status,
  };
}
