// @peculiar/x509 resolves its parsers through tsyringe, which needs the Reflect metadata polyfill loaded first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';
import type { StoredCertificate } from '../../../src/tls/certificate-objects.ts';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

/** A certificate authority of a test: a root a client trusts, and leaves it signs as an ACME CA would. */
export class TestCa {
  readonly certPem: string;
  readonly #cert: x509.X509Certificate;
  readonly #keys: webcrypto.CryptoKeyPair;

  private constructor(cert: x509.X509Certificate, keys: webcrypto.CryptoKeyPair) {
    this.#cert = cert;
    this.#keys = keys;
    this.certPem = cert.toString('pem');
  }

  static async create(name = 'Cloudwright test CA'): Promise<TestCa> {
    const keys = await generateKeys();
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: `CN=${name}`,
      notBefore: new Date(Date.now() - DAY_MS),
      notAfter: new Date(Date.now() + 30 * DAY_MS),
      keys,
      signingAlgorithm: ALGORITHM,
      extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true)],
    });
    return new TestCa(cert, keys);
  }

  /** A leaf for `dnsNames` (wildcards allowed) with a new key, as the operator stores it. */
  async issue(dnsNames: readonly string[]): Promise<StoredCertificate> {
    const keys = await generateKeys();
    const notAfter = new Date(Date.now() + 7 * DAY_MS);
    const leaf = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: `CN=${dnsNames[0] ?? 'leaf'}`,
      issuer: this.#cert.subject,
      notBefore: new Date(Date.now() - DAY_MS),
      notAfter,
      publicKey: keys.publicKey,
      signingKey: this.#keys.privateKey,
      signingAlgorithm: ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(dnsNames.map((value) => ({ type: 'dns', value }))),
      ],
    });
    return {
      chainPem: leaf.toString('pem'),
      privateKeyPem: KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string,
      serial: leaf.serialNumber.toLowerCase(),
      dnsNames: [...dnsNames],
      notAfter: notAfter.toISOString(),
    };
  }
}

function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;
}

/** A positive 64-bit serial, hex. */
function serial(): string {
  const bytes = randomBytes(8);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x10;
  return bytes.toString('hex');
}
