import { describe, expect, it } from 'vitest';
import type { DnsRecord, DnsRecordSpec } from '../apis/v1alpha1/dns-record.ts';
import { collisionRefusal, desiredRecords } from './desired.ts';

const domain = 'example.com';
function record(name: string, spec: Omit<DnsRecordSpec, 'domainRef'>, created = '2026-01-01T00:00:00Z', deleting = false): DnsRecord {
  return {
    metadata: { name, namespace: 'p', creationTimestamp: created, ...(deleting ? { deletionTimestamp: '2026-02-01T00:00:00Z' } : {}) },
    spec: { domainRef: { name: 'example-com' }, ...spec },
  } as DnsRecord;
}
const web = { kind: 'platform_app', resourceType: 'runtime_app', resourceId: 'web' } as const;

describe('desiredRecords', () => {
  it('refuses records past the limit: the ones already in the zone stay, then the oldest; invalid ones take no place', () => {
    const applied = (r: DnsRecord): DnsRecord => ({ ...r, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Applied', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } });
    const got = desiredRecords(
      domain,
      [
        applied(record('rec-live', { name: 'c', type: 'A', values: ['192.0.2.3'] }, '2026-01-03T00:00:00Z')),
        record('rec-old', { name: 'a', type: 'A', values: ['192.0.2.1'] }, '2026-01-01T00:00:00Z'),
        record('rec-owned', { name: 'www', type: 'CNAME', values: ['runtime.example.net'], owner: web }, '2026-01-05T00:00:00Z'),
        record('rec-bad', { name: 'x', type: 'A', values: ['not an address'] }, '2026-01-01T00:00:00Z'),
      ],
      2,
    );
    expect(got.desired.map((d) => d.id).sort()).toEqual(['rec-live', 'rec-old']);
    expect(got.rejected).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'rec-bad', reason: 'Invalid' }),
        expect.objectContaining({ id: 'rec-owned', reason: 'TooManyRecords', message: expect.stringContaining('has 2 records, the most it may have') }),
      ]),
    );
    expect(got.rejected).toHaveLength(2);
  });

  it('turns DnsRecords into canonical record sets, oldest first', () => {
    const got = desiredRecords(domain, [
      record('rec-b', { name: 'www', type: 'CNAME', values: ['App.Example.NET.'] }, '2026-01-02T00:00:00Z'),
      record('rec-a', { name: '@', type: 'TXT', values: ['"v=spf1 -all"'], ttl: 3600 }, '2026-01-01T00:00:00Z'),
    ]);
    expect(got).toEqual({
      desired: [
        { id: 'rec-a', name: 'example.com', type: 'TXT', ttl: 3600, values: ['v=spf1 -all'] },
        { id: 'rec-b', name: 'www.example.com', type: 'CNAME', ttl: 300, values: ['app.example.net'] },
      ],
      rejected: [],
    });
  });

  it('reads a stored name as relative, always, even when it ends in the domain', () => {
    const got = desiredRecords(domain, [
      record('rec-a', { name: 'www.example.com', type: 'A', values: ['192.0.2.1'] }),
      record('rec-b', { name: 'example.com', type: 'CNAME', values: ['app.example.net'] }),
    ]);
    expect(got).toEqual({
      desired: [
        { id: 'rec-a', name: 'www.example.com.example.com', type: 'A', ttl: 300, values: ['192.0.2.1'] },
        { id: 'rec-b', name: 'example.com.example.com', type: 'CNAME', ttl: 300, values: ['app.example.net'] },
      ],
      rejected: [],
    });
  });

  it('leaves out records being deleted, so the plan removes them', () => {
    const got = desiredRecords(domain, [record('rec-a', { name: 'www', type: 'A', values: ['192.0.2.1'] }, undefined, true)]);
    expect(got.desired).toEqual([]);
  });

  it('rejects invalid records with every problem', () => {
    const got = desiredRecords(domain, [record('bad', { name: '@', type: 'CNAME', values: ['x.example.net'], ttl: 5 })]);
    expect(got.rejected).toEqual([
      {
        id: 'bad',
        reason: 'Invalid',
        errors: [expect.objectContaining({ field: 'ttl' }), expect.objectContaining({ field: 'type' })],
        message: expect.stringContaining('ttl must be a whole number'),
      },
    ]);
  });

  it('keeps a platform-owned record over an older hand-written one at the same name', () => {
    const got = desiredRecords(domain, [
      record('by-hand', { name: 'app', type: 'A', values: ['192.0.2.1'] }, '2026-01-01T00:00:00Z'),
      record('app-web', { name: 'app', type: 'CNAME', values: ['web.runtime.example.net'], owner: web }, '2026-03-01T00:00:00Z'),
    ]);
    expect(got.desired.map((d) => d.id)).toEqual(['app-web']);
    expect(got.rejected).toEqual([
      {
        id: 'by-hand',
        reason: 'Conflict',
        errors: [expect.objectContaining({ field: 'name' })],
        message: 'a CNAME record must be the only record at its name, and app already has a CNAME record (app-web, written by the platform for app web)',
      },
    ]);
  });

  it('of two hand-written records with one name and type, the older one wins', () => {
    const got = desiredRecords(domain, [
      record('newer', { name: 'www', type: 'A', values: ['192.0.2.2'] }, '2026-01-02T00:00:00Z'),
      record('older', { name: 'www', type: 'A', values: ['192.0.2.1'] }, '2026-01-01T00:00:00Z'),
    ]);
    expect(got.desired.map((d) => d.id)).toEqual(['older']);
    expect(got.rejected.map((r) => [r.id, r.reason])).toEqual([['newer', 'Conflict']]);
  });
});

describe('collisionRefusal', () => {
  const www = (name: string, created: string, value = '192.0.2.1') => record(name, { name: 'www', type: 'A', values: [value] }, created);

  it('lets a record stand that collides with nothing, or with a later record', () => {
    const mine = www('r-b', '2026-01-01T00:00:00Z');
    expect(collisionRefusal(domain, [mine, record('r-c', { name: 'api', type: 'A', values: ['192.0.2.9'] })], mine)).toBeUndefined();
    expect(collisionRefusal(domain, [mine, www('r-a', '2026-01-01T00:00:01Z', '192.0.2.2')], mine)).toBeUndefined();
  });

  it('refuses a record that an earlier colliding record outranks', () => {
    const mine = www('r-a', '2026-01-01T00:00:01Z');
    expect(collisionRefusal(domain, [mine, www('r-z', '2026-01-01T00:00:00Z', '192.0.2.2')], mine)).toContain('an A record (r-z) already exists at www');
  });

  it('refuses a record that would win only because its name sorts first within the same second', () => {
    const mine = www('r-a', '2026-01-01T00:00:00Z');
    const theirs = www('r-z', '2026-01-01T00:00:00Z', '192.0.2.2');
    // The zone sync keeps mine (the name breaks the tie)…
    expect(desiredRecords(domain, [mine, theirs]).desired.map((r) => r.id)).toEqual(['r-a']);
    // …but the writer of r-z may have answered 201 already, so mine gives way: never two 201s.
    expect(collisionRefusal(domain, [mine, theirs], mine)).toBe('another request wrote a colliding record in the same second: an A record (r-z) already exists at www; change its values instead');
    // And r-z's writer, seeing both, gives way by the rule itself: both refused, nothing kept by mistake.
    expect(collisionRefusal(domain, [mine, theirs], theirs)).toContain('an A record (r-a) already exists at www');
  });

  it('is not refused by a colliding record being deleted', () => {
    const mine = www('r-a', '2026-01-01T00:00:00Z');
    const going = record('r-z', { name: 'www', type: 'A', values: ['192.0.2.2'] }, '2026-01-01T00:00:00Z', true);
    expect(collisionRefusal(domain, [mine, going], mine)).toBeUndefined();
  });
});
