import { describe, expect, it } from 'vitest';
import { standardWebhookHeaders, standardWebhookKey, standardWebhookSignature } from './standard-webhooks.ts';

// The vector of the reference JavaScript library's own test ("sign function works").
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('Standard Webhooks signing', () => {
  it('signs the reference vector', () => {
    const got = standardWebhookKey(SECRET);
    if (!('key' in got)) throw new Error(got.invalid);
    expect(standardWebhookSignature(got.key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('reads the key with or without the prefix', () => {
    expect(standardWebhookKey(SECRET)).toEqual(standardWebhookKey(SECRET.slice('whsec_'.length)));
  });

  it.each([
    ['not base64', 'whsec_not base64!'],
    ['too short', `whsec_${Buffer.alloc(16).toString('base64')}`],
    ['too long', `whsec_${Buffer.alloc(65).toString('base64')}`],
    ['empty', ''],
  ])('refuses a secret %s, without quoting it', (_name, secret) => {
    const got = standardWebhookKey(secret);
    expect('invalid' in got).toBe(true);
    if ('invalid' in got && secret.length > 6) expect(got.invalid).not.toContain(secret.slice(6));
  });

  it('gives the headers of an attempt', () => {
    const got = standardWebhookKey(SECRET);
    if (!('key' in got)) throw new Error(got.invalid);
    const headers = standardWebhookHeaders(got.key, 'abc', Buffer.from('[]'), new Date(1_700_000_000_999));
    expect(headers).toEqual({ 'webhook-id': 'abc', 'webhook-timestamp': '1700000000', 'webhook-signature': standardWebhookSignature(got.key, 'abc', 1700000000, '[]') });
  });
});
