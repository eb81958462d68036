import { webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { certificateRequest, chainOf, renewalCertId } from './csr.ts';
import * as x509 from '@peculiar/x509';

describe('certificate requests', () => {
  it('makes a P-256 key and a CSR naming every host as a SAN, signed by that key', async () => {
    const { csrDer, privateKeyPem } = await certificateRequest(['shop.example.com', 'www.shop.example.com']);
    const csr = new x509.Pkcs10CertificateRequest(csrDer);
    expect(await csr.verify()).toBe(true);
    expect(csr.subject).toBe('CN=shop.example.com');
    const san = csr.extensions.find((extension) => extension instanceof x509.SubjectAlternativeNameExtension);
    expect(san?.names.items.map((name) => name.value)).toEqual(['shop.example.com', 'www.shop.example.com']);
    expect(privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n$/);
  });

  it('refuses a request without names', async () => {
    await expect(certificateRequest([])).rejects.toThrow(/at least one name/);
  });
});

describe('renewalCertId (RFC 9773)', () => {
  it('joins the AKI key id and the serial’s DER bytes, a leading zero kept for a serial with its top bit set', async () => {
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const issuer = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const leaf = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const aki = await x509.AuthorityKeyIdentifierExtension.create(issuer.publicKey);
    const make = (serialNumber: string) =>
      x509.X509CertificateGenerator.create({
        serialNumber,
        subject: 'CN=leaf.test',
        issuer: 'CN=issuer.test',
        publicKey: leaf.publicKey,
        signingKey: issuer.privateKey,
        signingAlgorithm: alg,
        notBefore: new Date('2026-01-01T00:00:00Z'),
        notAfter: new Date('2026-04-01T00:00:00Z'),
        extensions: [aki],
      });
    const keyId = Buffer.from(aki.keyId ?? '', 'hex').toString('base64url');
    // RFC 9773's own example shape: a serial whose first byte is below 0x80 is its bytes as they are.
    expect(renewalCertId(await make('0087654321'))).toBe(`${keyId}.${Buffer.from('0087654321', 'hex').toString('base64url')}`);
    expect(renewalCertId(await make('7f01'))).toBe(`${keyId}.${Buffer.from('7f01', 'hex').toString('base64url')}`);
    const pem = (await make('7f02')).toString('pem');
    expect(chainOf(`${pem}\n${pem}`)).toHaveLength(2);
  });
});
