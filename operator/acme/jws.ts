import { createHash, createHmac, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

/** An ACME account key: ECDSA P-256, signing with ES256 (RFC 8555 §6.2 requires ES256 support of servers). */
export interface AccountKey {
  readonly privateKey: KeyObject;
  /** The public key as a JWK with only its required members, in the order RFC 7638 hashes them. */
  readonly jwk: { readonly crv: string; readonly kty: string; readonly x: string; readonly y: string };
}

export function base64url(data: Buffer | Uint8Array | string): string {
  return Buffer.from(data).toString('base64url');
}

/** A new P-256 account key. */
export function generateAccountKey(): AccountKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return accountKeyOf(privateKey);
}

/** The account key of a P-256 private key (a stored one, say). */
export function accountKeyOf(privateKey: KeyObject): AccountKey {
  const exported = createPublicKey(privateKey).export({ format: 'jwk' });
  if (exported.kty !== 'EC' || exported.crv !== 'P-256' || !exported.x || !exported.y) throw new Error('an ACME account key must be an ECDSA P-256 key');
  return { privateKey, jwk: { crv: exported.crv, kty: exported.kty, x: exported.x, y: exported.y } };
}

/** RFC 7638 thumbprint of the account key: SHA-256 of its JWK's required members, lexically ordered, no spaces. */
export function thumbprint(key: AccountKey): string {
  const { crv, kty, x, y } = key.jwk;
  return base64url(createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest());
}

/** A challenge's key authorization (RFC 8555 §8.1): its token and the account key's thumbprint. */
export function keyAuthorization(token: string, key: AccountKey): string {
  return `${token}.${thumbprint(key)}`;
}

/** The TXT value of a DNS-01 challenge (RFC 8555 §8.4): the key authorization's SHA-256. */
export function dns01Value(token: string, key: AccountKey): string {
  return base64url(createHash('sha256').update(keyAuthorization(token, key)).digest());
}

/** A flattened JWS (RFC 7515 §7.2.2), the body of every ACME POST. */
export interface FlattenedJws {
  readonly protected: string;
  readonly payload: string;
  readonly signature: string;
}

/**
 * Signs `payload` (`undefined`: a POST-as-GET, an empty payload) for `url`: with the account's URL as `kid`
 * once it has one, else with the key itself (`jwk`, for newAccount and revocation by certificate key).
 */
export function signJws(key: AccountKey, header: { readonly url: string; readonly nonce: string; readonly kid?: string }, payload: unknown): FlattenedJws {
  const protectedHeader = { alg: 'ES256', nonce: header.nonce, url: header.url, ...(header.kid ? { kid: header.kid } : { jwk: key.jwk }) };
  const encodedHeader = base64url(JSON.stringify(protectedHeader));
  const encodedPayload = payload === undefined ? '' : base64url(JSON.stringify(payload));
  // JWS wants the raw r || s form of an ECDSA signature, not DER.
  const signature = sign('sha256', Buffer.from(`${encodedHeader}.${encodedPayload}`), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return { protected: encodedHeader, payload: encodedPayload, signature: base64url(signature) };
}

/**
 * The external account binding of a newAccount request (RFC 8555 §7.3.4): the account's public key signed
 * with the MAC key the CA gave out of band (ZeroSSL, a private CA), under its key id.
 */
export function externalAccountBinding(key: AccountKey, binding: { readonly keyId: string; readonly hmacKey: string }, newAccountUrl: string): FlattenedJws {
  const encodedHeader = base64url(JSON.stringify({ alg: 'HS256', kid: binding.keyId, url: newAccountUrl }));
  const encodedPayload = base64url(JSON.stringify(key.jwk));
  const mac = createHmac('sha256', Buffer.from(binding.hmacKey, 'base64url')).update(`${encodedHeader}.${encodedPayload}`).digest();
  return { protected: encodedHeader, payload: encodedPayload, signature: base64url(mac) };
}
