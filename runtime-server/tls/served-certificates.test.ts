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
  it('decides a name some certificate has on its claims as read, and reads nothing for a made-up name', async () => {
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
    // Asked again while the names are not listed (NamesOnDemand answers it from its reads of the last seconds).
    expect(await handshake(served, 'shop.example')).toBe(context);
    expect(names.state.asked).toHaveLength(3);
  });

  it('follows the claims as read over what the caches say before the names are listed: a domain’s wildcard is not a custom host name’s', async () => {
    const wildcard = [tlsCertificate('alpha', 'domain', ['*.shop.example'], { state: 'Issued', serial: 'w1', dnsNames: ['*.shop.example'], notAfter: '2099-01-01T00:00:00Z' })];
    const context = createSecureContext();
    const served = new ServedCertificates({
      certificates: { onChange: () => () => {}, get: (key) => wildcard.find((c) => objectKey(c) === key), list: () => wildcard },
      // The domain's holder may serve every name under it, as far as the listed domain claims tell.
      mayServe: (namespace) => namespace === 'alpha',
      // Read now, api.shop.example is another project's custom host name.
      prepareName: (host) => Promise.resolve((namespace: string, name: string) => namespace === 'alpha' && name !== 'api.shop.example' && name === host),
      cache: new ContextCache({ max: 4, load: () => Promise.resolve(context) }),
    });
    expect(await handshake(served, 'api.shop.example')).toBeUndefined();
    expect(await handshake(served, 'www.shop.example')).toBe(context);
  });
});
