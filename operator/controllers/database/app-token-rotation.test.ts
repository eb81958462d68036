import { describe, expect, it } from 'vitest';
import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import type { SecretObject } from '../../../src/kube/index.ts';
import { MINTED_AT, mintedAnnotations, PREVIOUS_HASHES, PREVIOUS_UNTIL, previousTokens, ROTATE_REQUEST, rotatedAnnotations, rotationDue } from './app-token-rotation.ts';

const policy = { periodMs: 60_000, overlapMs: 10_000 };
const at = (iso: string) => new Date(iso);
const secret = (annotations?: Record<string, string>): SecretObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'orders-app-tokens', creationTimestamp: '2026-01-01T00:00:00Z', ...(annotations ? { annotations } : {}) },
});
const db = (asked?: string): Database => ({ metadata: { name: 'orders', ...(asked ? { annotations: { [ROTATE_REQUEST]: asked } } : {}) }, spec: {} });

describe('rotationDue', () => {
  it('rotates once the tokens are a period old, counting from their minting (else the Secret’s creation)', () => {
    expect(rotationDue(secret(), db(), policy, at('2026-01-01T00:00:59Z'))).toBeUndefined();
    expect(rotationDue(secret(), db(), policy, at('2026-01-01T00:01:00Z'))).toBe('period');
    const minted = secret({ [MINTED_AT]: '2026-01-01T00:00:30Z' });
    expect(rotationDue(minted, db(), policy, at('2026-01-01T00:01:00Z'))).toBeUndefined();
    expect(rotationDue(minted, db(), policy, at('2026-01-01T00:01:30Z'))).toBe('period');
  });

  it('does not rotate a set just minted for a request asked before it', () => {
    const minted = secret(mintedAnnotations(db('3'), at('2026-01-01T00:00:00Z')));
    expect(rotationDue(minted, db('3'), policy, at('2026-01-01T00:00:01Z'))).toBeUndefined();
    expect(rotationDue(minted, db('4'), policy, at('2026-01-01T00:00:01Z'))).toBe('request');
  });

  it('rotates for each new value of the request annotation, once', () => {
    expect(rotationDue(secret(), db('1'), policy, at('2026-01-01T00:00:01Z'))).toBe('request');
    expect(rotationDue(secret({ [ROTATE_REQUEST]: '1' }), db('1'), policy, at('2026-01-01T00:00:01Z'))).toBeUndefined();
    expect(rotationDue(secret({ [ROTATE_REQUEST]: '1' }), db('2'), policy, at('2026-01-01T00:00:01Z'))).toBe('request');
  });
});

describe('the replaced tokens', () => {
  it('are accepted for the overlap after a rotation, by hash, then no more', () => {
    const now = at('2026-01-01T00:05:00Z');
    const annotations = rotatedAnnotations(secret({ other: 'kept' }), db('7'), { full: 'f', readOnly: 'r' }, policy, now);
    expect(annotations).toStrictEqual({
      other: 'kept',
      [MINTED_AT]: '2026-01-01T00:05:00.000Z',
      [PREVIOUS_HASHES]: 'f,r',
      [PREVIOUS_UNTIL]: '2026-01-01T00:05:10.000Z',
      [ROTATE_REQUEST]: '7',
    });
    const rotated = secret(annotations);
    expect(previousTokens(rotated, at('2026-01-01T00:05:09Z'))).toStrictEqual({ full: 'f', readOnly: 'r', until: '2026-01-01T00:05:10.000Z' });
    expect(previousTokens(rotated, at('2026-01-01T00:05:10Z'))).toBeUndefined();
    expect(previousTokens(secret(), now)).toBeUndefined();
  });
});
