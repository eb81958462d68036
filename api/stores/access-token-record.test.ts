import { describe, expect, it } from 'vitest';
import type { TokenRecord } from '../../src/auth/ports.ts';
import { CREATED_AT_ANNOTATION, toAccessToken, toTokenRecord } from './access-token-record.ts';

const token: TokenRecord = {
  id: 'tok-0123456789abcdef',
  userId: 'alice',
  tokenHash: 'a'.repeat(64),
  scopes: ['apps:read'],
  description: 'laptop',
  createdAt: new Date('2030-01-02T03:04:05Z'),
  expiresAt: new Date('2030-02-01T00:00:00Z'),
  revoked: false,
};

describe('AccessToken ↔ TokenRecord', () => {
  it('round-trips every field', () => {
    const object = toAccessToken(token);
    expect(object.metadata?.name).toBe(token.id);
    expect(object.spec).toEqual({
      user: 'alice',
      tokenHash: token.tokenHash,
      scopes: ['apps:read'],
      description: 'laptop',
      expiresAt: '2030-02-01T00:00:00Z',
      revoked: false,
    });
    expect(toTokenRecord(object)).toEqual(token);
  });

  it('rounds timestamps down to whole seconds, so an expiry comes early, never late', () => {
    const object = toAccessToken({ ...token, expiresAt: new Date('2030-02-01T00:00:00.999Z') });
    expect(object.spec.expiresAt).toBe('2030-02-01T00:00:00Z');
  });

  it('writes no expiresAt for a token that does not expire', () => {
    const object = toAccessToken({ ...token, expiresAt: undefined });
    expect('expiresAt' in object.spec).toBe(false);
    expect(toTokenRecord(object).expiresAt).toBeUndefined();
  });

  it('reads a hand-written token: creationTimestamp as createdAt, defaults for optional fields', () => {
    const record = toTokenRecord({
      metadata: { name: 'tok-kubectl', creationTimestamp: '2031-05-06T07:08:09Z' },
      spec: { user: 'bob', tokenHash: 'b'.repeat(64), scopes: [] } as never,
    });
    expect(record).toMatchObject({ id: 'tok-kubectl', description: '', revoked: false, expiresAt: undefined });
    expect(record.createdAt).toEqual(new Date('2031-05-06T07:08:09Z'));
  });

  it('falls back to creationTimestamp when the annotation is unreadable', () => {
    const object = toAccessToken(token);
    object.metadata = { ...object.metadata, annotations: { [CREATED_AT_ANNOTATION]: 'soon' }, creationTimestamp: '2031-01-01T00:00:00Z' };
    expect(toTokenRecord(object).createdAt).toEqual(new Date('2031-01-01T00:00:00Z'));
  });
});
