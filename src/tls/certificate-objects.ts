import { createHash } from 'node:crypto';

/** A served certificate as sealed in the bucket: written by the operator, read by cw-runtime. */
export interface StoredCertificate {
  /** The leaf first, then the intermediates, PEM. */
  readonly chainPem: string;
  /** PKCS#8 PEM. */
  readonly privateKeyPem: string;
  readonly serial: string;
  readonly dnsNames: readonly string[];
  readonly notAfter: string;
}

/** A key made for an order before its finalize, so a restart after the finalize can still pair it with the certificate. */
export interface StoredOrderKey {
  readonly orderUrl: string;
  readonly privateKeyPem: string;
}

/** An ACME account: its key, and its URL once registered. */
export interface StoredAccount {
  readonly directoryUrl: string;
  /** The account key: a P-256 private key, PKCS#8 PEM. */
  readonly privateKeyPem: string;
  readonly accountUrl?: string;
}

const PREFIX = 'tls/';

/**
 * The certificate of TlsCertificate `namespace/name` with serial `serial`: one object per serial, never
 * overwritten, so a reader that follows `status.serial` gets a key and a chain that belong together.
 */
export function certificateObjectKey(namespace: string, name: string, serial: string): string {
  return `${PREFIX}certificates/${namespace}/${name}/${serial}`;
}

/** Every certificate object of one TlsCertificate (for cleaning up). */
export function certificateObjectPrefix(namespace: string, name: string): string {
  return `${PREFIX}certificates/${namespace}/${name}/`;
}

/** The key of one order, by a digest of the order's URL. */
export function orderKeyObjectKey(namespace: string, name: string, orderUrl: string): string {
  return `${PREFIX}orders/${namespace}/${name}/${digest(orderUrl)}`;
}

export function orderKeyObjectPrefix(namespace: string, name: string): string {
  return `${PREFIX}orders/${namespace}/${name}/`;
}

/** The account of one ACME directory. */
export function accountObjectKey(directoryUrl: string): string {
  return `${PREFIX}accounts/${digest(directoryUrl)}`;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 40);
}
