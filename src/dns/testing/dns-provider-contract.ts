// The DnsProvider contract: every implementation of the port runs this suite (MemoryDnsProvider in a unit
// test, Route53Provider against moto's server in an integration test). The controllers rely on each property.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DnsProviderError, recordKey, type DnsProvider, type RecordSet } from '../provider.ts';

export interface DnsProviderContractSubject {
  /** The provider under test, with owner id `contract`. */
  provider: DnsProvider;
  /** Another installation's provider (owner id `someone-else`) on the same account. */
  foreign: DnsProvider;
  /** A zone id that does not exist. */
  missingZoneId: string;
}

const fresh = () => randomBytes(4).toString('hex');
const freshDomain = () => `contract-${fresh()}.example`;

const byKey = (records: readonly RecordSet[]) => new Map(records.map((r) => [recordKey(r), r]));
const sorted = (values: readonly string[]) => [...values].sort();
const set = (name: string, type: string, values: string[], ttl = 300): RecordSet => ({ name, type, ttl, values });

async function providerError(promise: Promise<unknown>): Promise<DnsProviderError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DnsProviderError);
  return err as DnsProviderError;
}

/** Registers the contract tests for one implementation. `subject` is called inside each test. */
export function describeDnsProviderContract(name: string, subject: () => DnsProviderContractSubject): void {
  describe(`DnsProvider contract: ${name}`, () => {
    it('creates a zone with nameservers and its own apex NS and SOA records', async () => {
      const { provider } = subject();
      const domain = freshDomain();
      const zone = await provider.createZone(domain, `ref-${fresh()}`);
      expect(zone.zoneId).toMatch(/^[A-Za-z0-9/_.-]+$/);
      expect(zone.nameservers.length).toBeGreaterThan(0);
      for (const ns of zone.nameservers) expect(ns).toBe(ns.toLowerCase().replace(/\.$/, ''));
      const records = byKey(await provider.listRecords(zone.zoneId));
      expect(sorted(records.get(`${domain} NS`)?.values ?? []).map((v) => v.replace(/\.$/, ''))).toEqual(sorted(zone.nameservers));
      expect(records.has(`${domain} SOA`)).toBe(true);
    });

    it('is idempotent by caller reference: a retry answers the same zone, a new reference a new zone', async () => {
      const { provider } = subject();
      const domain = freshDomain();
      const ref = `ref-${fresh()}`;
      const first = await provider.createZone(domain, ref);
      expect(await provider.createZone(domain, ref)).toEqual(first);
      expect(await provider.createZone(`${domain.toUpperCase()}.`, ref)).toEqual(first);
      const other = await provider.createZone(domain, `ref-${fresh()}`);
      expect(other.zoneId).not.toBe(first.zoneId);
    });

    it('finds the zone a caller reference made until it is deleted, and no other', async () => {
      const { provider } = subject();
      const domain = freshDomain();
      const ref = `ref-${fresh()}`;
      expect(await provider.findZone(domain, ref)).toBeUndefined();
      const { zoneId } = await provider.createZone(domain, ref);
      expect(await provider.findZone(domain, ref)).toBe(zoneId);
      expect(await provider.findZone(`${domain.toUpperCase()}.`, ref)).toBe(zoneId);
      expect(await provider.findZone(domain, `ref-${fresh()}`)).toBeUndefined();
      expect(await provider.findZone(freshDomain(), ref)).toBeUndefined();
      await provider.deleteZone(zoneId);
      expect(await provider.findZone(domain, ref)).toBeUndefined();
    });

    it('refuses a caller reference longer than 128 characters', async () => {
      const { provider } = subject();
      const err = await providerError(provider.createZone(freshDomain(), 'r'.repeat(129)));
      expect(err).toMatchObject({ code: 'invalid', retryable: false });
    });

    it('creates and updates record sets with UPSERT and lists them in canonical form', async () => {
      const { provider } = subject();
      const domain = freshDomain();
      const { zoneId } = await provider.createZone(domain, `ref-${fresh()}`);
      const long = `v=DKIM1; k=rsa; p=${'A'.repeat(400)}`;
      const create = [
        set(`www.${domain}`, 'CNAME', ['app.runtime.example.net']),
        set(`*.preview.${domain}`, 'A', ['192.0.2.10', '192.0.2.11'], 60),
        set(domain, 'TXT', ['v=spf1 include:_spf.example.net ~all', 'say "hi" \\ there', long]),
        set(domain, 'MX', ['10 mail.example.net', '20 mail2.example.net']),
        set(domain, 'CAA', ['0 issue "letsencrypt.org"']),
        set(`_sip._tcp.${domain}`, 'SRV', ['10 5 5060 sip.example.net']),
        set(`v6.${domain}`, 'AAAA', ['2001:db8::1']),
      ];
      await provider.applyChanges(zoneId, { create, update: [], delete: [] });
      await provider.applyChanges(zoneId, { create, update: [], delete: [] }); // UPSERT: a retry is harmless
      let records = byKey(await provider.listRecords(zoneId));
      for (const want of create) {
        const got = records.get(recordKey(want));
        expect(got, recordKey(want)).toBeDefined();
        expect({ ...got, values: sorted(got?.values ?? []) }).toEqual({ ...want, values: sorted(want.values) });
      }
      const changed = set(`www.${domain}`, 'CNAME', ['other.runtime.example.net'], 120);
      await provider.applyChanges(zoneId, { create: [], update: [changed], delete: [] });
      records = byKey(await provider.listRecords(zoneId));
      expect(records.get(`www.${domain} CNAME`)).toEqual(changed);
    });

    it('deletes record sets, and deleting one already gone or with stale values succeeds', async () => {
      const { provider } = subject();
      const domain = freshDomain();
      const { zoneId } = await provider.createZone(domain, `ref-${fresh()}`);
      const a = set(`a.${domain}`, 'A', ['192.0.2.1']);
      const b = set(`b.${domain}`, 'A', ['192.0.2.2', '192.0.2.3']);
      await provider.applyChanges(zoneId, { create: [a, b], update: [], delete: [] });
      await provider.applyChanges(zoneId, { create: [], update: [], delete: [a] });
      await provider.applyChanges(zoneId, { create: [], update: [], delete: [a] });
      // Stale: other TTL and values than the zone holds; the record set still goes.
      await provider.applyChanges(zoneId, { create: [], update: [], delete: [set(b.name, 'A', ['192.0.2.99'], 60)] });
      // A gone delete does not hold back the rest of the change.
      const c = set(`c.${domain}`, 'A', ['192.0.2.4']);
      await provider.applyChanges(zoneId, { create: [c], update: [], delete: [set(`gone.${domain}`, 'A', ['192.0.2.5'])] });
      const keys = [...byKey(await provider.listRecords(zoneId)).keys()].sort();
      expect(keys).toEqual([`${domain} NS`, `${domain} SOA`, `c.${domain} A`].sort());
    });

    it('replaces a record set by another type at the same name in one change', async () => {
      const { provider } = subject();
      const domain = freshDomain();
      const { zoneId } = await provider.createZone(domain, `ref-${fresh()}`);
      const a = set(`app.${domain}`, 'A', ['192.0.2.1']);
      await provider.applyChanges(zoneId, { create: [a], update: [], delete: [] });
      const cname = set(`app.${domain}`, 'CNAME', ['app.runtime.example.net']);
      await provider.applyChanges(zoneId, { create: [cname], update: [], delete: [a] });
      const records = byKey(await provider.listRecords(zoneId));
      expect(records.has(`app.${domain} A`)).toBe(false);
      expect(records.get(`app.${domain} CNAME`)).toEqual(cname);
    });

    it('rejects a record outside the zone as a non-retryable error', async () => {
      const { provider } = subject();
      const domain = freshDomain();
      const { zoneId } = await provider.createZone(domain, `ref-${fresh()}`);
      const err = await providerError(provider.applyChanges(zoneId, { create: [set('www.elsewhere.test', 'A', ['192.0.2.1'])], update: [], delete: [] }));
      expect(err).toMatchObject({ code: 'rejected', retryable: false, op: 'applyChanges' });
      expect(err.message).not.toContain(domain);
    });

    it('answers zone_not_found for a zone that does not exist', async () => {
      const { provider, missingZoneId } = subject();
      expect(await providerError(provider.listRecords(missingZoneId))).toMatchObject({ code: 'zone_not_found', retryable: false });
      const change = { create: [set('a.example.example', 'A', ['192.0.2.1'])], update: [], delete: [] };
      expect(await providerError(provider.applyChanges(missingZoneId, change))).toMatchObject({ code: 'zone_not_found' });
      await provider.applyChanges(missingZoneId, { create: [], update: [], delete: [] }); // nothing to send
    });

    it('deletes a zone with its records; deleting it again succeeds', async () => {
      const { provider } = subject();
      const domain = freshDomain();
      const { zoneId } = await provider.createZone(domain, `ref-${fresh()}`);
      await provider.applyChanges(zoneId, {
        create: [set(`www.${domain}`, 'CNAME', ['app.runtime.example.net']), set(domain, 'TXT', ['hello'])],
        update: [],
        delete: [],
      });
      await provider.deleteZone(zoneId);
      expect(await providerError(provider.listRecords(zoneId))).toMatchObject({ code: 'zone_not_found' });
      await provider.deleteZone(zoneId);
    });

    it('never deletes a zone another installation created', async () => {
      const { provider, foreign } = subject();
      const domain = freshDomain();
      const theirs = await foreign.createZone(domain, `ref-${fresh()}`);
      expect(await providerError(provider.deleteZone(theirs.zoneId))).toMatchObject({ code: 'not_owned', retryable: false });
      expect((await provider.listRecords(theirs.zoneId)).length).toBeGreaterThan(0);
      await foreign.deleteZone(theirs.zoneId);
    });
  });
}
