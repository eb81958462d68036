import { describe, expect, it } from 'vitest';
import { ownershipRecord } from './ownership.ts';
import { planChanges, sameRecordSet, type DesiredRecordSet } from './plan.ts';
import type { RecordSet } from './provider.ts';

const domain = 'example.com';
const owner = 'cw';
const rs = (name: string, type: string, values: string[], ttl = 300): RecordSet => ({ name, type, ttl, values });
const mark = (name: string, type: string, by = owner) => ownershipRecord(name, type, by);
const want = (name: string, type: string, values: string[], ttl = 300, id?: string): DesiredRecordSet => ({ id, name, type, ttl, values });
const zone: RecordSet[] = [rs(domain, 'NS', ['ns-1.dns.example', 'ns-2.dns.example'], 172800), rs(domain, 'SOA', ['ns-1.dns.example. hostmaster.example.com. 1 7200 900 1209600 86400'], 900)];

interface Case {
  name: string;
  desired: DesiredRecordSet[];
  current: RecordSet[];
  allowWrites?: boolean;
  create?: RecordSet[];
  update?: RecordSet[];
  delete?: RecordSet[];
  conflicts?: [string, string][]; // [id or name, reason]
  held?: string[];
}

const cases: Case[] = [
  { name: 'an empty zone with nothing desired needs nothing', desired: [], current: zone },
  {
    name: 'a new record set is created after its ownership mark',
    desired: [want('www.example.com', 'CNAME', ['app.runtime.example.net'])],
    current: zone,
    create: [mark('www.example.com', 'CNAME'), rs('www.example.com', 'CNAME', ['app.runtime.example.net'])],
  },
  {
    name: 'a record set in sync needs nothing, whatever the order of its values',
    desired: [want('example.com', 'A', ['192.0.2.2', '192.0.2.1'])],
    current: [...zone, rs('example.com', 'A', ['192.0.2.1', '192.0.2.2']), mark('example.com', 'A')],
  },
  {
    name: 'an owned record set with other values is updated',
    desired: [want('example.com', 'A', ['192.0.2.3'])],
    current: [...zone, rs('example.com', 'A', ['192.0.2.1']), mark('example.com', 'A')],
    update: [rs('example.com', 'A', ['192.0.2.3'])],
  },
  {
    name: 'an owned record set with another TTL is updated',
    desired: [want('example.com', 'A', ['192.0.2.1'], 3600)],
    current: [...zone, rs('example.com', 'A', ['192.0.2.1']), mark('example.com', 'A')],
    update: [rs('example.com', 'A', ['192.0.2.1'], 3600)],
  },
  {
    name: 'an owned record set nobody wants is deleted, then its mark',
    desired: [],
    current: [...zone, rs('old.example.com', 'TXT', ['bye']), mark('old.example.com', 'TXT')],
    delete: [rs('old.example.com', 'TXT', ['bye']), mark('old.example.com', 'TXT')],
  },
  {
    name: 'a foreign record set is never deleted',
    desired: [],
    current: [...zone, rs('legacy.example.com', 'A', ['198.51.100.1'])],
  },
  {
    name: 'a desired record set that exists without our mark is a conflict, not a takeover',
    desired: [want('legacy.example.com', 'A', ['192.0.2.1'], 300, 'rec-legacy')],
    current: [...zone, rs('legacy.example.com', 'A', ['198.51.100.1'])],
    conflicts: [['rec-legacy', 'ForeignRecord']],
  },
  {
    name: "another installation's record set is foreign",
    desired: [want('shared.example.com', 'A', ['192.0.2.1'], 300, 'rec-shared')],
    current: [...zone, rs('shared.example.com', 'A', ['198.51.100.1']), mark('shared.example.com', 'A', 'other')],
    conflicts: [['rec-shared', 'ForeignRecord']],
  },
  {
    name: "another installation's record sets and marks are not deleted",
    desired: [],
    current: [...zone, rs('shared.example.com', 'A', ['198.51.100.1']), mark('shared.example.com', 'A', 'other'), mark('gone.example.com', 'A', 'other')],
  },
  {
    name: 'the apex NS and SOA are never touched, even under a mark',
    desired: [],
    current: [...zone, mark('example.com', 'NS'), mark('example.com', 'SOA')],
  },
  {
    name: 'the apex NS cannot be desired',
    desired: [want('example.com', 'NS', ['ns1.other.net'], 300, 'rec-ns')],
    current: zone,
    conflicts: [['rec-ns', 'ZoneRecord']],
  },
  {
    name: 'a name outside the zone cannot be desired',
    desired: [want('www.example.org', 'A', ['192.0.2.1'], 300, 'rec-out')],
    current: zone,
    conflicts: [['rec-out', 'OutsideZone']],
  },
  {
    name: 'of two record sets with one name and type the first wins',
    desired: [want('www.example.com', 'A', ['192.0.2.1'], 300, 'first'), want('WWW.example.com.', 'a', ['192.0.2.2'], 300, 'second')],
    current: zone,
    create: [mark('www.example.com', 'A'), rs('www.example.com', 'A', ['192.0.2.1'])],
    conflicts: [['second', 'Duplicate']],
  },
  {
    name: 'a CNAME cannot join a foreign record set at its name',
    desired: [want('www.example.com', 'CNAME', ['app.runtime.example.net'], 300, 'rec-cname')],
    current: [...zone, rs('www.example.com', 'TXT', ['verify=1'])],
    conflicts: [['rec-cname', 'CnameConflict']],
  },
  {
    name: 'no record set can join a foreign CNAME at its name',
    desired: [want('www.example.com', 'TXT', ['verify=1'], 300, 'rec-txt')],
    current: [...zone, rs('www.example.com', 'CNAME', ['elsewhere.example.net'])],
    conflicts: [['rec-txt', 'CnameConflict']],
  },
  {
    name: 'an owned record set at the name gives way to a CNAME in one change',
    desired: [want('app.example.com', 'CNAME', ['app.runtime.example.net'])],
    current: [...zone, rs('app.example.com', 'A', ['192.0.2.1']), mark('app.example.com', 'A')],
    create: [mark('app.example.com', 'CNAME'), rs('app.example.com', 'CNAME', ['app.runtime.example.net'])],
    delete: [rs('app.example.com', 'A', ['192.0.2.1']), mark('app.example.com', 'A')],
  },
  {
    name: 'a CNAME and another desired record set at one name: the later one is refused',
    desired: [want('app.example.com', 'CNAME', ['app.runtime.example.net'], 300, 'cname'), want('app.example.com', 'TXT', ['x'], 300, 'txt')],
    current: zone,
    create: [mark('app.example.com', 'CNAME'), rs('app.example.com', 'CNAME', ['app.runtime.example.net'])],
    conflicts: [['txt', 'CnameConflict']],
  },
  {
    name: 'a mark left behind without its record set is deleted',
    desired: [],
    current: [...zone, mark('crashed.example.com', 'A')],
    delete: [mark('crashed.example.com', 'A')],
  },
  {
    name: 'a mark left behind for a desired record set is kept and the record set created',
    desired: [want('crashed.example.com', 'A', ['192.0.2.1'])],
    current: [...zone, mark('crashed.example.com', 'A')],
    create: [rs('crashed.example.com', 'A', ['192.0.2.1'])],
  },
  {
    name: 'while writes are held back, creates and updates wait and deletes still happen',
    allowWrites: false,
    desired: [want('new.example.com', 'A', ['192.0.2.1'], 300, 'new'), want('changed.example.com', 'A', ['192.0.2.9'], 300, 'changed'), want('same.example.com', 'A', ['192.0.2.1'], 300, 'same')],
    current: [
      ...zone,
      rs('changed.example.com', 'A', ['192.0.2.1']),
      mark('changed.example.com', 'A'),
      rs('same.example.com', 'A', ['192.0.2.1']),
      mark('same.example.com', 'A'),
      rs('unwanted.example.com', 'A', ['192.0.2.1']),
      mark('unwanted.example.com', 'A'),
    ],
    delete: [rs('unwanted.example.com', 'A', ['192.0.2.1']), mark('unwanted.example.com', 'A')],
    held: ['new', 'changed'],
  },
  {
    name: 'a provider-specific record set is never ours, even under our mark',
    desired: [want('alias.example.com', 'A', ['192.0.2.1'], 300, 'rec-alias')],
    current: [...zone, { ...rs('alias.example.com', 'A', ['d123.cloudfront.net'], 0), providerSpecific: true }, mark('alias.example.com', 'A')],
    conflicts: [['rec-alias', 'ForeignRecord']],
  },
  {
    name: 'a wildcard is marked at a name of its own',
    desired: [want('*.preview.example.com', 'A', ['192.0.2.1'])],
    current: zone,
    create: [mark('*.preview.example.com', 'A'), rs('*.preview.example.com', 'A', ['192.0.2.1'])],
  },
  {
    name: 'a TXT record at a mark-like name without our text is an ordinary foreign record',
    desired: [],
    current: [...zone, rs('_cw-a.www.example.com', 'TXT', ['something else'])],
  },
  {
    name: 'names and types from the provider are compared in normal form',
    desired: [want('www.example.com', 'A', ['192.0.2.1'])],
    current: [...zone, rs('WWW.Example.com.', 'a', ['192.0.2.1']), mark('www.example.com', 'A')],
  },
];

describe('planChanges', () => {
  it.each(cases)('$name', (c) => {
    const plan = planChanges({ domain, ownerId: owner, desired: c.desired, current: c.current, allowWrites: c.allowWrites });
    expect(plan.changes).toEqual({ create: c.create ?? [], update: c.update ?? [], delete: c.delete ?? [] });
    expect(plan.conflicts.map((x) => [x.id ?? x.name, x.reason])).toEqual(c.conflicts ?? []);
    expect(plan.held.map((d) => d.id)).toEqual(c.held ?? []);
  });

  it('explains a conflict in words the owner can act on', () => {
    const plan = planChanges({
      domain,
      ownerId: owner,
      desired: [want('legacy.example.com', 'A', ['192.0.2.1'], 300, 'rec-legacy')],
      current: [...zone, rs('legacy.example.com', 'A', ['198.51.100.1'])],
    });
    expect(plan.conflicts[0]?.message).toBe('legacy A already exists in the zone and was not written by Cloudwright; remove it at the DNS provider or choose another name');
  });

  it('converges: applying the plan to the zone leaves nothing to do', () => {
    const desired = [want('www.example.com', 'CNAME', ['app.runtime.example.net']), want('example.com', 'TXT', ['v=spf1 -all'])];
    let current: RecordSet[] = [...zone, rs('old.example.com', 'A', ['192.0.2.1']), mark('old.example.com', 'A')];
    const first = planChanges({ domain, ownerId: owner, desired, current });
    const gone = new Set(first.changes.delete.map((r) => `${r.name} ${r.type}`));
    current = [...current.filter((r) => !gone.has(`${r.name} ${r.type}`)), ...first.changes.create, ...first.changes.update];
    const second = planChanges({ domain, ownerId: owner, desired, current });
    expect(second.changes).toEqual({ create: [], update: [], delete: [] });
  });

  it('sameRecordSet compares TTL and values as a set', () => {
    expect(sameRecordSet(rs('a', 'A', ['1', '2']), rs('a', 'A', ['2', '1']))).toBe(true);
    expect(sameRecordSet(rs('a', 'A', ['1']), rs('a', 'A', ['1'], 60))).toBe(false);
    expect(sameRecordSet(rs('a', 'A', ['1', '1']), rs('a', 'A', ['1', '2']))).toBe(false);
  });
});
