import { createHash, createHmac, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { accountKeyOf, base64url, dns01Value, externalAccountBinding, generateAccountKey, keyAuthorization, signJws, thumbprint } from './jws.ts';

const key = generateAccountKey();
const decode = (part: string): unknown => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

describe('ACME request signing', () => {
  it('signs with ES256 over the raw r||s form, the key itself before the account exists', () => {
    const jws = signJws(key, { url: 'https://ca.test/new-acct', nonce: 'n1' }, { termsOfServiceAgreed: true });
    expect(decode(jws.protected)).toEqual({ alg: 'ES256', nonce: 'n1', url: 'https://ca.test/new-acct', jwk: key.jwk });
    expect(decode(jws.payload)).toEqual({ termsOfServiceAgreed: true });
    const signature = Buffer.from(jws.signature, 'base64url');
    expect(signature).toHaveLength(64);
    const publicKey = createPublicKey({ key: key.jwk, format: 'jwk' });
    expect(verify('sha256', Buffer.from(`${jws.protected}.${jws.payload}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
  });

  it('names the account by its URL once it has one, and sends an empty payload for a POST-as-GET', () => {
    const jws = signJws(key, { url: 'https://ca.test/order/1', nonce: 'n2', kid: 'https://ca.test/acct/7' }, undefined);
    expect(decode(jws.protected)).toEqual({ alg: 'ES256', nonce: 'n2', url: 'https://ca.test/order/1', kid: 'https://ca.test/acct/7' });
    expect(jws.payload).toBe('');
  });

  it('hashes the JWK members in RFC 7638 order for the thumbprint, and derives the challenge answers from it', () => {
    const { crv, kty, x, y } = key.jwk;
    const expected = base64url(createHash('sha256').update(`{"crv":"${crv}","kty":"${kty}","x":"${x}","y":"${y}"}`).digest());
    expect(thumbprint(key)).toBe(expected);
    expect(keyAuthorization('tok', key)).toBe(`tok.${expected}`);
    expect(dns01Value('tok', key)).toBe(base64url(createHash('sha256').update(`tok.${expected}`).digest()));
  });

  it('binds an external account with HS256 over the account key, under the CA’s key id', () => {
    const hmacKey = base64url(Buffer.from('a shared secret of the CA'));
    const eab = externalAccountBinding(key, { keyId: 'kid-1', hmacKey }, 'https://ca.test/new-acct');
    expect(decode(eab.protected)).toEqual({ alg: 'HS256', kid: 'kid-1', url: 'https://ca.test/new-acct' });
    expect(decode(eab.payload)).toEqual(key.jwk);
    const mac = createHmac('sha256', Buffer.from('a shared secret of the CA')).update(`${eab.protected}.${eab.payload}`).digest();
    expect(eab.signature).toBe(base64url(mac));
  });

  it('takes back a stored P-256 key and refuses any other', () => {
    expect(accountKeyOf(key.privateKey).jwk).toEqual(key.jwk);
    const { privateKey: other } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    expect(() => accountKeyOf(other)).toThrow(/P-256/);
  });
});
