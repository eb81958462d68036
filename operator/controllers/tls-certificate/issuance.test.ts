import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { MemoryObjectStore } from '../../../src/object-store/memory-object-store.ts';
import { SealedStore } from '../../../src/tls/sealed-store.ts';
import type { AcmeAuthorization, AcmeClient, AcmeOrder } from '../../acme/client.ts';
import { generateAccountKey } from '../../acme/jws.ts';
import { Issuance, POLL_MS, renewalWindow } from './issuance.ts';
import { MAX_SELF_WAIT_MS } from './self-waits.ts';

const now = new Date('2026-11-29T00:00:00Z');

/** An issuance whose CA cannot be reached (its account cannot even be fetched). */
function unreachable(): Issuance {
  return new Issuance({
    acme: () => Promise.reject(new Error('connect ECONNREFUSED 192.0.2.1:443')),
    sealed: new SealedStore(new MemoryObjectStore(), randomBytes(32)),
    takeOrder: () => 0,
    now: () => now,
  });
}

function cert(status: TlsCertificate['status'] = {}): TlsCertificate {
  return { apiVersion: 'cloudwright.dev/v1alpha1', kind: 'TlsCertificate', metadata: { namespace: 'p', name: 'c', uid: 'u' }, spec: { dnsNames: ['a.example.com'] }, status };
}

describe('Issuance with the CA down', () => {
  it('fails with CAUnavailable and backs off a minute, then two', async () => {
    const first = await unreachable().step(cert());
    expect(first.status).toMatchObject({ state: 'Failed', failures: 1, lastError: { reason: 'CAUnavailable', message: expect.stringMatching(/ECONNREFUSED/) } });
    expect(Date.parse(first.status.nextAttemptAt!) - now.getTime()).toBe(60_000);
    const second = await unreachable().step(cert(first.status));
    expect(second.status.failures).toBe(2);
    expect(Date.parse(second.status.nextAttemptAt!) - now.getTime()).toBe(120_000);
    expect(second.event).toMatchObject({ type: 'Warning', reason: 'CAUnavailable' });
  });

  it('keeps a served certificate served (state Renewing, same serial) while its renewal cannot reach the CA', async () => {
    const served = { state: 'Issued' as const, serial: 'ab12', dnsNames: ['a.example.com'], notAfter: '2027-01-01T00:00:00Z' };
    const step = await unreachable().step(cert(served));
    expect(step.status).toMatchObject({ state: 'Renewing', serial: 'ab12', notAfter: '2027-01-01T00:00:00Z', lastError: { reason: 'CAUnavailable' } });
  });

  it('waits for the account’s order budget before ordering, without failing', async () => {
    const issuance = new Issuance({ acme: () => Promise.reject(new Error('not reached')), sealed: new SealedStore(new MemoryObjectStore(), randomBytes(32)), takeOrder: () => 42_000, now: () => now });
    const step = await issuance.step(cert());
    expect(step.requeueAfterMs).toBe(42_000);
    expect(step.status.lastError).toBeUndefined();
  });
});

describe('Issuance waiting on the platform itself', () => {
  /** A CA whose order waits on one pending HTTP-01 challenge; the platform's own answer is not served yet. */
  function waitingOnUs(clock: { now: Date }): Issuance {
    const order = {
      url: 'https://ca.test/order/1',
      status: 'pending',
      identifiers: [{ type: 'dns', value: 'a.example.com' }],
      authorizations: ['https://ca.test/authz/1'],
      finalize: 'https://ca.test/finalize/1',
    } as AcmeOrder;
    const authz = {
      url: 'https://ca.test/authz/1',
      status: 'pending',
      identifier: { type: 'dns', value: 'a.example.com' },
      challenges: [{ type: 'http-01', status: 'pending', token: 'tok', url: 'https://ca.test/chall/1' }],
    } as AcmeAuthorization;
    const acme = {
      accountKey: generateAccountKey(),
      order: () => Promise.resolve(order),
      authorization: () => Promise.resolve(authz),
      respond: () => Promise.reject(new Error('not told to validate while the answer is not served')),
    } as unknown as AcmeClient;
    const issuance = new Issuance({
      acme: () => Promise.resolve(acme),
      sealed: new SealedStore(new MemoryObjectStore(), randomBytes(32)),
      takeOrder: () => 0,
      http01Ready: () => Promise.resolve(false),
      now: () => clock.now,
    });
    return issuance;
  }

  it('looks at an order whose HTTP-01 answer is not served yet less often the longer that lasts, up to five minutes', async () => {
    const clock = { now };
    const issuance = waitingOnUs(clock);
    const published = { order: { url: 'https://ca.test/order/1', dnsNames: ['a.example.com'] }, http01: [] };
    // The first step publishes the answer; from then on the platform waits on itself.
    const first = await issuance.step(cert(published));
    const waiting = first.status;
    const after = async (ms: number) => {
      clock.now = new Date(now.getTime() + ms);
      return (await issuance.step(cert(waiting))).requeueAfterMs;
    };
    expect(await after(0)).toBe(POLL_MS);
    expect(await after(60_000)).toBe(15_000);
    expect(await after(24 * 3600_000)).toBe(MAX_SELF_WAIT_MS);
  });
});

describe('renewalWindow', () => {
  const ca = (renewalInfo: () => Promise<unknown>) => ({ renewalInfo }) as unknown as AcmeClient;

  it('asks again in an hour when the CA failed to answer, so a window it moves later is still heard', async () => {
    const answer = await renewalWindow(
      ca(() => Promise.reject(new Error('the ACME server answered 500'))),
      'aki.serial',
      now,
    );
    expect(answer).toEqual({ recheckAt: new Date(now.getTime() + 3600_000) });
  });

  it('asks nothing more of a CA that offers no renewal information', async () => {
    expect(
      await renewalWindow(
        ca(() => Promise.resolve(undefined)),
        'aki.serial',
        now,
      ),
    ).toBeUndefined();
  });

  it('answers the window and when to ask again, as the CA says', async () => {
    const window = { start: new Date('2027-01-01T00:00:00Z'), end: new Date('2027-01-02T00:00:00Z') };
    const answer = await renewalWindow(
      ca(() => Promise.resolve({ ...window, retryAfterSeconds: 7200 })),
      'aki.serial',
      now,
    );
    expect(answer).toEqual({ window, recheckAt: new Date(now.getTime() + 7200_000) });
  });
});
