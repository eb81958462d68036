import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParentZoneServer, type ParentZoneServer } from '../../../src/dns/parent-zone-server.ts';
import { verifyExternalRecords } from './external-verification.ts';

let zone: ParentZoneServer;
beforeAll(async () => {
  zone = await startParentZoneServer({ suffix: 'test' });
});
afterAll(() => zone.stop());

const records = [
  { recordType: 'CNAME', name: 'www.ext.test', value: 'runtime.apps.example.net' },
  { recordType: 'TXT', name: '_cloudwright.www.ext.test', value: 'cloudwright-verification=abc' },
];

describe('verifyExternalRecords (against a real authoritative server)', () => {
  it('says which records are missing or wrong, then passes once they are published', async () => {
    const missing = await verifyExternalRecords(records, zone.address, 1000);
    expect(missing.ok).toBe(false);
    expect(missing.problems).toEqual([
      'CNAME www.ext.test → runtime.apps.example.net: not published yet (the resolver answers NXDOMAIN)',
      'TXT _cloudwright.www.ext.test → cloudwright-verification=abc: not published yet (the resolver answers NXDOMAIN)',
    ]);
    zone.setRecord('www.ext.test', 'CNAME', ['elsewhere.example.net']);
    zone.setRecord('_cloudwright.www.ext.test', 'TXT', ['cloudwright-verification=abc']);
    const wrong = await verifyExternalRecords(records, zone.address, 1000);
    expect(wrong.problems).toEqual(['CNAME www.ext.test → runtime.apps.example.net: the published value is elsewhere.example.net']);
    zone.setRecord('www.ext.test', 'CNAME', ['Runtime.Apps.Example.NET.']);
    expect(await verifyExternalRecords(records, zone.address, 1000)).toEqual({ ok: true, problems: [] });
  });

  it('never passes an empty list: no records prove nothing', async () => {
    expect(await verifyExternalRecords([], zone.address, 1000)).toEqual({ ok: false, problems: ['there are no records to look up, so nothing proves the name points here'] });
  });

  it('reports a resolver that does not answer as something to retry', async () => {
    const result = await verifyExternalRecords(records.slice(0, 1), '127.0.0.1:9', 200);
    expect(result.ok).toBe(false);
    expect(result.problems[0]).toMatch(/the resolver (did not answer in time|could not be reached); finalize can be repeated/);
  });
});
