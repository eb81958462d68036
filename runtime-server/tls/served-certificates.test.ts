import { createSecureContext, type SecureContext } from 'node:tls';
import { describe, expect, it } from 'vitest';
import type { TlsCertificate } from '../../src/apis/v1alpha1/tls-certificate.ts';
import { objectKey } from '../../src/kube/index.ts';
import { ContextCache } from './context-cache.ts';
import { ServedCertificates } from './served-certificates.ts';
import { tlsCertificate } from './testing/certificates.ts';
import { preparedNames } from './testing/prepared-names.ts';

const certificates: TlsCertificate[] = [tlsCertificate('alpha', 'shop', ['shop.example'], { state: 'Issued', serial: 'aa', dnsNames: ['shop.example'], notAfter: '2099-01-01T00:00:00Z' })];

/** The context a handshake for `name` is given, or `undefined` (no certificate: the handshake fails). */
function handshake(served: ServedCertificates, name: string): Promise<SecureContext | undefined> {
  return new Promise((resolve, reject) => served.SNICallback(name, (err, context) => (err ? reject(err) : resolve(context))));
}

describe('ServedCertificates before the names are listed', () => {
  it('reads a name a certificate has but the caches cannot decide yet, then serves it; a made-up name is read nothing for', async () => {
    const names = preparedNames();
    const context = createSecureContext();
    const served = new ServedCertificates({
      certificates: { onChange: () => () => {}, get: (key) => certificates.find((c) => objectKey(c) === key), list: () => certificates },
      mayServe: names.mayServe,
      prepareName: names.prepareName,
      cache: new ContextCache({ max: 4, load: () => Promise.resolve(context) }),
    });
    expect(await handshake(served, 'made-up.example')).toBeUndefined();
    expect(names.state.asked).toEqual([]);
    names.state.failing = true;
    expect(await handshake(served, 'SHOP.example.')).toBeUndefined();
    names.state.failing = false;
    expect(await handshake(served, 'SHOP.example.')).toBe(context);
    expect(names.state.asked).toEqual(['shop.example', 'shop.example']);
    // Decided now: no read.
    expect(await handshake(served, 'shop.example')).toBe(context);
    expect(names.state.asked).toHaveLength(2);
  });
});
