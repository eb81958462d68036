import { describe, expect, it } from 'vitest';
import type { AppHostname, AppHostnameStatus } from '../../../src/apis/v1alpha1/app-hostname.ts';
import { findCondition, statusChanged } from '../../../src/conditions/index.ts';
import { TAKEN_RECHECK_MS } from '../name-claims.ts';
import { desiredStatus, verificationDue, type DnsObservation, type Observation, type Recheck } from './desired-status.ts';

const created = '2030-01-01T00:00:00Z';
const t0 = new Date('2030-01-01T00:10:00Z');
const t1 = new Date('2030-01-01T00:20:00Z');
const recheck: Recheck = { minMs: 5_000, intervalMs: 3_600_000 };
const records = [{ recordType: 'CNAME', name: 'www.example.com', value: 'runtime.apps.test' }];

function hostname(spec: Partial<AppHostname['spec']> = {}, status?: AppHostnameStatus): AppHostname {
  return {
    metadata: { namespace: 'p', name: 'www.example.com', generation: 2, uid: 'u1', creationTimestamp: created },
    spec: { appRef: { name: 'web' }, hostname: 'www.example.com', dnsMode: 'external_records', ...spec },
    ...(status ? { status } : {}),
  } as AppHostname;
}
const managed = (spec: Partial<AppHostname['spec']> = {}, status?: AppHostnameStatus) => hostname({ dnsMode: 'managed_project_domain', ...spec }, status);

const external: DnsObservation = { kind: 'external-records', verificationToken: 'abcdefghijklmnop', dnsRecords: records };
const written = (applied: boolean, reason = applied ? 'RecordsApplied' : 'Writing'): DnsObservation => ({
  kind: 'managed-records',
  projectDomain: 'example-com',
  dnsRecords: records,
  applied: { applied, reason, message: applied ? 'The records are in the zone.' : 'Writing 1 record.' },
});
const seen = (dns: DnsObservation, over: Partial<Observation> = {}): Observation => ({ appExists: true, dns, lookedUp: false, ...over });
const activeStatus: AppHostnameStatus = { state: 'active', activatedAt: '2030-01-01T00:05:00Z', projectDomain: 'example-com', dnsRecords: records };
const notFound = { ok: false as const, reason: 'RecordsNotFound', message: 'The DNS records of www.example.com are not live yet: no CNAME.' };

describe('desiredStatus', () => {
  it.each<[string, AppHostname, Observation, { state: string; ready: [string, string]; dns?: [string, string] | null; attached?: string; requeueAfter?: number }]>([
    ['external, no finalize yet', hostname(), seen(external), { state: 'pending', ready: ['False', 'AwaitingFinalize'], dns: null, attached: 'Attached' }],
    ['its app is gone', hostname(), seen(external, { appExists: false }), { state: 'pending', ready: ['False', 'AwaitingFinalize'], attached: 'AppNotFound' }],
    ['managed, no project domain holds it', managed(), seen({ kind: 'no-managed-domain' }), { state: 'pending', ready: ['False', 'DnsNotApplied'], dns: ['False', 'DomainNotManaged'] }],
    ['managed, records on their way', managed(), seen(written(false)), { state: 'pending', ready: ['False', 'DnsNotApplied'], dns: ['False', 'Writing'] }],
    ['managed, records applied, no finalize', managed(), seen(written(true)), { state: 'pending', ready: ['False', 'AwaitingFinalize'], dns: ['True', 'RecordsApplied'] }],
    ['an apex and no runtime addresses', hostname(), seen({ kind: 'no-runtime-target' }), { state: 'pending', ready: ['False', 'AwaitingFinalize'], dns: ['False', 'NoRuntimeTarget'] }],
    ['managed finalize, verified', managed({ finalize: true }), seen(written(true), { verdict: { ok: true } }), { state: 'active', ready: ['True', 'Active'], dns: ['True', 'RecordsApplied'] }],
    [
      'external finalize, verified',
      hostname({ finalize: true }),
      seen(external, { verdict: { ok: true }, lookedUp: true }),
      { state: 'active', ready: ['True', 'Active'], dns: ['True', 'RecordsVerified'], requeueAfter: undefined },
    ],
    [
      'external finalize, records not live: looked up again on the schedule',
      hostname({ finalize: true }),
      seen(external, { verdict: notFound, lookedUp: true }),
      { state: 'pending', ready: ['False', 'RecordsNotFound'], dns: ['False', 'RecordsNotFound'], requeueAfter: 60_000 },
    ],
    [
      'external finalize, not due: Verifying until the next look-up',
      hostname({ finalize: true }, { lastVerifiedAt: '2030-01-01T00:09:30Z' }),
      seen(external),
      { state: 'pending', ready: ['False', 'Verifying'], dns: null, requeueAfter: 30_000 },
    ],
    [
      'external finalize, an apex and no runtime addresses: never verified, nothing scheduled',
      hostname({ finalize: true }),
      seen({ kind: 'no-runtime-target' }, { verdict: { ok: false, reason: 'NoRuntimeTarget', message: 'no addresses' } }),
      { state: 'pending', ready: ['False', 'NoRuntimeTarget'], dns: ['False', 'NoRuntimeTarget'], requeueAfter: undefined },
    ],
    [
      'finalize, taken by another project',
      managed({ finalize: true }),
      seen(written(true), { verdict: { ok: false, reason: 'HostnameTaken', message: 'taken' } }),
      { state: 'pending', ready: ['False', 'HostnameTaken'], dns: ['False', 'HostnameTaken'], requeueAfter: TAKEN_RECHECK_MS },
    ],
    [
      'active, its domain deleted',
      managed({ finalize: true }, activeStatus),
      seen(written(true), { lost: { ok: false, reason: 'DomainGone', message: 'gone' } }),
      { state: 'pending', ready: ['False', 'DomainGone'], dns: ['False', 'DomainGone'] },
    ],
    [
      'active, its claim held by another project',
      hostname({ finalize: true }, activeStatus),
      seen(external, { lost: { ok: false, reason: 'HostnameTaken', message: 'taken' } }),
      { state: 'pending', ready: ['False', 'HostnameTaken'], dns: ['False', 'HostnameTaken'], requeueAfter: TAKEN_RECHECK_MS },
    ],
    ['active and still served', managed({ finalize: true }, activeStatus), seen(written(true)), { state: 'active', ready: ['True', 'Active'], dns: ['True', 'RecordsApplied'] }],
  ])('%s', (_name, h, observation, want) => {
    const { status, requeueAfter } = desiredStatus(h, observation, t0, recheck);
    expect(status.state).toBe(want.state);
    expect(findCondition(status.conditions, 'Ready')).toMatchObject({ status: want.ready[0], reason: want.ready[1], observedGeneration: 2 });
    if (want.dns === null) expect(findCondition(status.conditions, 'DnsReady')).toBeUndefined();
    else if (want.dns) expect(findCondition(status.conditions, 'DnsReady')).toMatchObject({ status: want.dns[0], reason: want.dns[1] });
    if (want.attached) expect(findCondition(status.conditions, 'RuntimeAttached')?.reason).toBe(want.attached);
    expect(requeueAfter).toBe(want.requeueAfter);
    expect(status.observedGeneration).toBe(2);
  });

  it('writes the records it was given: external with the challenge, managed with its project domain', () => {
    expect(desiredStatus(hostname(), seen(external), t0, recheck).status).toMatchObject({ verificationToken: 'abcdefghijklmnop', dnsRecords: records });
    expect(desiredStatus(managed(), seen(written(true)), t0, recheck).status).toMatchObject({ projectDomain: 'example-com', dnsRecords: records });
  });

  it('says which pending domain holds a managed hostname; Ready repeats what DnsReady says', () => {
    const { status } = desiredStatus(managed(), seen({ kind: 'no-managed-domain', pendingDomain: 'example.com' }), t0, recheck);
    const dns = findCondition(status.conditions, 'DnsReady');
    expect(dns?.message).toBe('The project domain example.com is pending_delegation: the records are written once it is managed.');
    expect(findCondition(status.conditions, 'Ready')?.message).toBe(dns?.message);
  });

  it('activates once: activatedAt and lastVerifiedAt at the time of the pass, kept afterwards', () => {
    const { status } = desiredStatus(hostname({ finalize: true }), seen(external, { verdict: { ok: true }, lookedUp: true }), t0, recheck);
    expect(status).toMatchObject({ activatedAt: '2030-01-01T00:10:00Z', lastVerifiedAt: '2030-01-01T00:10:00Z' });
    const again = desiredStatus(hostname({ finalize: true }, status), seen(external), t1, recheck).status;
    expect(again.activatedAt).toBe('2030-01-01T00:10:00Z');
    expect(statusChanged(status, again)).toBe(false);
  });

  it('drops activatedAt when an active hostname is lost', () => {
    const { status } = desiredStatus(managed({ finalize: true }, activeStatus), seen(written(true), { lost: { ok: false, reason: 'DomainGone', message: 'gone' } }), t0, recheck);
    expect(status.activatedAt).toBeUndefined();
  });

  it('keeps the last verdict on Ready between two look-ups', () => {
    const first = desiredStatus(hostname({ finalize: true }), seen(external, { verdict: notFound, lookedUp: true }), t0, recheck).status;
    const between = desiredStatus(hostname({ finalize: true }, first), seen(external), t1, recheck).status;
    expect(findCondition(between.conditions, 'Ready')).toMatchObject({ reason: 'RecordsNotFound', message: notFound.message, lastTransitionTime: '2030-01-01T00:10:00Z' });
  });

  it('answers a verification request', () => {
    expect(desiredStatus(hostname({ finalize: true }), seen(external, { request: '2030-01-01T00:09:00Z', verdict: notFound, lookedUp: true }), t0, recheck).status.lastHandledVerification).toBe(
      '2030-01-01T00:09:00Z',
    );
  });

  it('sets a condition once per pass: a lost domain after records applied moves DnsReady once', () => {
    const h = managed({ finalize: true }, activeStatus);
    const { status } = desiredStatus(h, seen(written(true), { lost: { ok: false, reason: 'DomainGone', message: 'gone' } }), t0, recheck);
    expect(status.conditions?.filter((c) => c.type === 'DnsReady')).toHaveLength(1);
  });

  it('is stable: the same observation a pass later changes nothing, so nothing is written', () => {
    for (const [h, o] of [
      [hostname(), seen(external)],
      [managed(), seen(written(false))],
      [managed({ finalize: true }, activeStatus), seen(written(true))],
      [hostname({ finalize: true }, { lastVerifiedAt: '2030-01-01T00:09:30Z' }), seen(external)],
    ] as const) {
      const first = desiredStatus(h, o, t0, recheck).status;
      expect(statusChanged(first, desiredStatus({ ...h, status: first }, o, t1, recheck).status)).toBe(false);
    }
  });
});

describe('verificationDue', () => {
  it.each<[string, AppHostname, string | undefined, boolean]>([
    ['managed: always', managed({ finalize: true }, { lastVerifiedAt: '2030-01-01T00:09:59Z' }), undefined, true],
    ['external, never looked up', hostname({ finalize: true }), undefined, true],
    ['external, looked up a moment ago', hostname({ finalize: true }, { lastVerifiedAt: '2030-01-01T00:09:59Z' }), undefined, false],
    ['external, looked up a moment ago but asked again', hostname({ finalize: true }, { lastVerifiedAt: '2030-01-01T00:09:59Z' }), 'now', true],
    [
      'external, after another project held the name',
      hostname(
        { finalize: true },
        { lastVerifiedAt: '2030-01-01T00:09:59Z', conditions: [{ type: 'DnsReady', status: 'False', reason: 'HostnameTaken', message: 'taken', lastTransitionTime: created }] },
      ),
      undefined,
      true,
    ],
  ])('%s → %s', (_name, h, request, due) => {
    expect(verificationDue(h, request, recheck, t0)).toBe(due);
  });
});
