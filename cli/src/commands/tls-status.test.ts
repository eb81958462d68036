// How a certificate reads in `cw hostnames ls` and `cw domains get`.
import { describe, expect, it } from 'vitest';
import { tlsCell, tlsFields, type Tls } from './tls-status.ts';

const none: Tls = { status: 'none', not_after: null, issuer: null, last_error: null, next_attempt_at: null };
const issued: Tls = { ...none, status: 'issued', not_after: '2027-02-27T10:00:00Z', issuer: 'Pebble Intermediate CA 1a2b3c' };
const failed: Tls = {
  ...none,
  status: 'failed',
  last_error: { reason: 'CAAForbidden', message: 'A CAA record of shop.test forbids this CA.', at: '2026-11-29T10:00:00Z' },
  next_attempt_at: '2026-11-29T11:00:00Z',
};

describe('tlsCell', () => {
  it('shows the expiry date of a served certificate, the reason of a failure, or the state', () => {
    expect(tlsCell(none)).toBe('-');
    expect(tlsCell(issued)).toBe('issued until 2027-02-27');
    expect(tlsCell({ ...issued, status: 'renewing' })).toBe('renewing until 2027-02-27');
    expect(tlsCell(failed)).toBe('failed: CAAForbidden');
    expect(tlsCell({ ...none, status: 'issuing' })).toBe('issuing');
  });
});

describe('tlsFields', () => {
  it('lists state, expiry, issuer, and the last error with when the next attempt is', () => {
    expect(tlsFields(issued)).toEqual([
      ['Certificate', 'issued'],
      ['Expires', '2027-02-27T10:00:00Z'],
      ['Issuer', 'Pebble Intermediate CA 1a2b3c'],
    ]);
    expect(tlsFields(failed)).toEqual([
      ['Certificate', 'failed'],
      ['Expires', undefined],
      ['Issuer', undefined],
      ['Last error', 'A CAA record of shop.test forbids this CA. (CAAForbidden, 2026-11-29T10:00:00Z)'],
      ['Next attempt', '2026-11-29T11:00:00Z'],
    ]);
    expect(tlsFields(none)[0]?.[1]).toMatch(/^none yet/);
  });
});
