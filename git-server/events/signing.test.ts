import { describe, expect, it } from 'vitest';
import { deliveryHeaders, deliveryId, signature } from './signing.ts';

describe('delivery signing', () => {
  it('names a batch by the SHA-1 of its body (a known vector)', () => {
    expect(deliveryId('The quick brown fox jumps over the lazy dog')).toBe('2fd4e1c67a2d28fced849ee1bb76e7391b93eb12');
  });

  it('signs with sha256= and the hex HMAC-SHA256 of the body (known vectors: Wikipedia’s HMAC example and GitHub’s webhook one)', () => {
    expect(signature('The quick brown fox jumps over the lazy dog', 'key')).toBe('sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8');
    expect(signature(Buffer.from('Hello, World!'), "It's a Secret to Everybody")).toBe('sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17');
  });

  it('sends the signature only when a secret is set', () => {
    const body = Buffer.from('[]');
    expect(deliveryHeaders(body, undefined)).toEqual({ 'content-type': 'application/json', 'x-service-delivery': deliveryId(body) });
    expect(deliveryHeaders(body, 's')['x-service-signature']).toBe(signature(body, 's'));
    expect(deliveryHeaders(body, '')).not.toHaveProperty('x-service-signature');
  });
});
