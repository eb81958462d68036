// @peculiar/x509 resolves its parsers through tsyringe, which needs the Reflect metadata polyfill loaded first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, createPublicKey, generateKeyPairSync, type webcrypto } from 'node:crypto';
import { base64url } from './jws.ts';

/** The algorithm of certificate keys: ECDSA P-256, what every CA and client takes and the cheapest to handshake. */
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** A new certificate key (ECDSA P-256), PKCS#8 PEM. */
export function newCertificateKey(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** The CSR (DER) for `names` (the first as subject CN, all as SANs) with the key `privateKeyPem`. */
export async function certificateRequestFor(names: readonly string[], privateKeyPem: string): Promise<Uint8Array> {
  if (names.length === 0) throw new Error('a certificate request needs at least one name');
  const privateKey = createPrivateKey(privateKeyPem);
  const keys = {
    privateKey: privateKey.toCryptoKey(KEY_ALGORITHM, false, ['sign']),
    publicKey: createPublicKey(privateKey).toCryptoKey(KEY_ALGORITHM, true, ['verify']),
  } as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `CN=${names[0]}`,
    keys,
    signingAlgorithm: KEY_ALGORITHM,
    extensions: [new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: 'dns', value })))],
  });
  return new Uint8Array(csr.rawData);
}

/** A certificate's new key and the CSR for `names`, DER. */
export async function certificateRequest(names: readonly string[]): Promise<{ csrDer: Uint8Array; privateKeyPem: string }> {
  const privateKeyPem = newCertificateKey();
  return { csrDer: await certificateRequestFor(names, privateKeyPem), privateKeyPem };
}

/** The certificates of a PEM chain, leaf first. */
export function chainOf(pem: string): x509.X509Certificate[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((match) => new x509.X509Certificate(match[0]));
}

/**
 * RFC 9773's identifier of a certificate: its Authority Key Identifier's key id and its serial number's DER
 * content bytes, each base64url, joined by a dot. What `renewalInfo` is asked by and what `replaces` names.
 */
export function renewalCertId(certificate: x509.X509Certificate): string {
  const aki = certificate.getExtension(x509.AuthorityKeyIdentifierExtension);
  if (!aki?.keyId) throw new Error('the certificate has no Authority Key Identifier, so it has no ARI identifier');
  // The serial is hex; DER encodes a positive integer with a leading zero byte when its top bit is set.
  let serial = certificate.serialNumber.length % 2 === 1 ? `0${certificate.serialNumber}` : certificate.serialNumber;
  if (/^[89a-f]/i.test(serial)) serial = `00${serial}`;
  return `${base64url(Buffer.from(aki.keyId, 'hex'))}.${base64url(Buffer.from(serial, 'hex'))}`;
}
