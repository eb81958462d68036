import { describe, expect, it } from 'vitest';
import { AcmeProblem } from '../../acme/problem.ts';
import { backoffMs, failureOf, failureOfError, MAX_BACKOFF_MS, MIN_BACKOFF_MS } from './failures.ts';

describe('order failures', () => {
  it('backs off a minute, doubling with each failure in a row, up to a day, never under the CA’s Retry-After', () => {
    expect(backoffMs(1)).toBe(MIN_BACKOFF_MS);
    expect(backoffMs(2)).toBe(2 * MIN_BACKOFF_MS);
    expect(backoffMs(5)).toBe(16 * MIN_BACKOFF_MS);
    expect(backoffMs(40)).toBe(MAX_BACKOFF_MS);
    expect(backoffMs(1, 3 * 3600_000)).toBe(3 * 3600_000);
  });

  it('names the cause a user can act on, from the type or a subproblem, with what the CA said', () => {
    const caa = failureOf(new AcmeProblem(403, { type: 'urn:ietf:params:acme:error:caa', detail: 'CAA record for example.com prevents issuance' }));
    expect(caa.reason).toBe('CAAForbidden');
    expect(caa.message).toMatch(/CAA record .* forbids this CA.*The CA said: caa: CAA record for example.com prevents issuance/);
    const sub = failureOf(
      new AcmeProblem(400, {
        type: 'urn:ietf:params:acme:error:rejectedIdentifier',
        detail: 'Error creating new order',
        subproblems: [{ type: 'urn:ietf:params:acme:error:connection', detail: 'refused', identifier: { value: 'a.example' } }],
      }),
    );
    expect(sub.reason).toBe('NameRejected');
    const limited = failureOf(new AcmeProblem(429, { type: 'urn:ietf:params:acme:error:rateLimited', detail: 'too many' }, 7200));
    expect(limited).toMatchObject({ reason: 'RateLimited', retryAfterMs: 7_200_000 });
    expect(failureOf(new AcmeProblem(400, { type: 'urn:example:other', detail: 'odd' })).reason).toBe('OrderFailed');
  });

  it('words a refused challenge for its type: a path for http-01, a TXT record for dns-01', () => {
    const problem = new AcmeProblem(400, { type: 'urn:ietf:params:acme:error:unauthorized', detail: 'Error retrieving TXT records for DNS challenge' });
    expect(failureOf(problem, 'http-01').message).toMatch(/acme-challenge\//);
    const dns01 = failureOf(problem, 'dns-01');
    expect(dns01).toMatchObject({ reason: 'ChallengeFailed', message: expect.stringMatching(/TXT record at _acme-challenge/) });
    expect(dns01.message).not.toMatch(/well-known/);
  });

  it('calls anything that is not the CA’s answer CAUnavailable, and bounds the message', () => {
    expect(failureOfError(new Error('connect ECONNREFUSED'), 'The CA could not be reached')).toMatchObject({ reason: 'CAUnavailable', message: expect.stringMatching(/ECONNREFUSED/) });
    expect(failureOfError(new Error('x'.repeat(5000)), 'y').message.length).toBeLessThanOrEqual(1000);
  });
});
