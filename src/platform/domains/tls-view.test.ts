import { describe, expect, it } from 'vitest';
import type { TlsCertificate } from '../../apis/v1alpha1/tls-certificate.ts';
import { tlsView } from './tls-view.ts';

const cert = (status: TlsCertificate['status']): TlsCertificate => ({ spec: { dnsNames: ['www.shop.test'] }, ...(status ? { status } : {}) });
const at = '2026-11-29T10:00:00Z';

describe('tlsView', () => {
  it('says none when there is no certificate, pending when the controller has not written its status yet', () => {
    expect(tlsView(undefined)).toEqual({ status: 'none', not_after: null, issuer: null, last_error: null, next_attempt_at: null });
    expect(tlsView(cert(undefined))).toEqual({ status: 'pending', not_after: null, issuer: null, last_error: null, next_attempt_at: null });
  });

  it('carries the state in lower case, the expiry and the issuer of the served certificate', () => {
    expect(tlsView(cert({ state: 'Issued', notAfter: '2027-02-27T10:00:00Z', issuer: 'Pebble Intermediate CA', serial: 'ab' }))).toEqual({
      status: 'issued',
      not_after: '2027-02-27T10:00:00Z',
      issuer: 'Pebble Intermediate CA',
      last_error: null,
      next_attempt_at: null,
    });
    for (const [state, status] of [
      ['Issuing', 'issuing'],
      ['Renewing', 'renewing'],
      ['Pending', 'pending'],
    ] as const)
      expect(tlsView(cert({ state })).status).toBe(status);
  });

  it('says why an order failed and when the next one is placed, and nothing of the order itself', () => {
    const view = tlsView(
      cert({
        state: 'Failed',
        lastError: { reason: 'CAAForbidden', message: 'A CAA record of shop.test forbids this CA.', at },
        nextAttemptAt: '2026-11-29T11:00:00Z',
        failures: 3,
        order: { url: 'https://ca.test/order/1', dnsNames: ['www.shop.test'] },
        http01: [{ dnsName: 'www.shop.test', token: 'tok', keyAuthorization: 'tok.thumb' }],
      }),
    );
    expect(view).toEqual({
      status: 'failed',
      not_after: null,
      issuer: null,
      last_error: { reason: 'CAAForbidden', message: 'A CAA record of shop.test forbids this CA.', at },
      next_attempt_at: '2026-11-29T11:00:00Z',
    });
  });
});
