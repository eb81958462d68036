// The pure half of DNS reconciliation (external-dns `plan/plan.go`): from the record sets that should exist
// and those the provider holds, the change that converges them. Only record sets carrying our ownership mark
// (ownership.ts) are ever updated or deleted; the zone's apex NS and SOA, records written by anyone else and
// provider-specific record sets are left alone, and a desired record that would collide with them is reported
// as a conflict instead of written.
import { isInZone, normalizeName, relativeName } from './names.ts';
import { ownershipRecord, ownershipText, parseOwnershipName, parseOwnershipText } from './ownership.ts';
import { recordKey, type Changes, type RecordSet } from './provider.ts';

/** A record set that should exist: `name` fully qualified, `values` canonical (records.ts). */
export interface DesiredRecordSet {
  /** Which object asked for it (the DnsRecord name), for conflict reports. */
  readonly id?: string | undefined;
  readonly name: string;
  readonly type: string;
  readonly ttl: number;
  readonly values: readonly string[];
}

/** Why a desired record set was not written: CamelCase, stable, usable as a condition reason. */
export type ConflictReason = 'ForeignRecord' | 'CnameConflict' | 'Duplicate' | 'ZoneRecord' | 'OutsideZone';

export interface Conflict {
  readonly id?: string | undefined;
  readonly name: string;
  readonly type: string;
  readonly reason: ConflictReason;
  readonly message: string;
}

export interface PlanInput {
  /** The zone's domain, normalized. */
  readonly domain: string;
  /** This installation's owner id (ownership.ts). */
  readonly ownerId: string;
  /** In priority order: when two collide, the earlier one wins (callers sort by creation time). */
  readonly desired: readonly DesiredRecordSet[];
  /** What `DnsProvider.listRecords` answered. */
  readonly current: readonly RecordSet[];
  /**
   * False while the domain is not managed (pending delegation): creates and updates are held back, deletes
   * of our records still happen. Default true.
   */
  readonly allowWrites?: boolean;
}

export interface Plan {
  /** Apply only when not empty (`isEmptyChanges`). */
  readonly changes: Changes;
  readonly conflicts: readonly Conflict[];
  /** Desired record sets that differ from the zone but were held back because writes are not allowed. */
  readonly held: readonly DesiredRecordSet[];
}

/** Same TTL and the same values, in any order. */
export function sameRecordSet(a: Pick<RecordSet, 'ttl' | 'values'>, b: Pick<RecordSet, 'ttl' | 'values'>): boolean {
  if (a.ttl !== b.ttl || a.values.length !== b.values.length) return false;
  const sortedB = [...b.values].sort();
  return [...a.values].sort().every((v, i) => v === sortedB[i]);
}

const byNameThenType = (a: RecordSet, b: RecordSet) => (a.name === b.name ? a.type.localeCompare(b.type) : a.name.localeCompare(b.name));

interface Mark {
  readonly owner: string;
  readonly record: RecordSet;
}

/** Splits the zone into ownership marks (by the key of the record set they mark) and ordinary record sets. */
function readZone(current: readonly RecordSet[]): { marks: Map<string, Mark>; records: Map<string, RecordSet> } {
  const marks = new Map<string, Mark>();
  const records = new Map<string, RecordSet>();
  for (const raw of current) {
    const record = { ...raw, name: normalizeName(raw.name), type: raw.type.toUpperCase() };
    const marked = record.type === 'TXT' && !record.providerSpecific ? parseOwnershipName(record.name) : undefined;
    const owner = marked && record.values.length === 1 ? parseOwnershipText(record.values[0] ?? '') : undefined;
    if (marked && owner) marks.set(recordKey(marked), { owner, record });
    else records.set(recordKey(record), record);
  }
  return { marks, records };
}

/** Computes the change from `current` to `desired` (see the file comment and `PlanInput`). */
export function planChanges(input: PlanInput): Plan {
  const { domain, ownerId } = input;
  const allowWrites = input.allowWrites ?? true;
  const { marks, records } = readZone(input.current);
  const isZoneRecord = (name: string, type: string) => name === domain && (type === 'NS' || type === 'SOA');
  const isOwned = (key: string) => {
    const record = records.get(key);
    return marks.get(key)?.owner === ownerId && !record?.providerSpecific && !(record && isZoneRecord(record.name, record.type));
  };

  const conflicts: Conflict[] = [];
  const held: DesiredRecordSet[] = [];
  const createMarks: RecordSet[] = [];
  const create: RecordSet[] = [];
  const update: RecordSet[] = [];
  const accepted = new Map<string, DesiredRecordSet>();
  const acceptedAt = new Map<string, RecordSet[]>(); // by name: accepted desired record sets there

  for (const d of input.desired) {
    const want: RecordSet = { name: normalizeName(d.name), type: d.type.toUpperCase(), ttl: d.ttl, values: [...d.values] };
    const key = recordKey(want);
    const shown = `${isInZone(want.name, domain) ? relativeName(want.name, domain) : want.name} ${want.type}`;
    const conflict = (reason: ConflictReason, message: string) => conflicts.push({ id: d.id, name: want.name, type: want.type, reason, message });

    if (!isInZone(want.name, domain)) {
      conflict('OutsideZone', `${want.name} is not inside ${domain}`);
      continue;
    }
    if (isZoneRecord(want.name, want.type)) {
      conflict('ZoneRecord', `${shown}: the zone's own NS and SOA records at the apex cannot be changed`);
      continue;
    }
    const first = accepted.get(key);
    if (first) {
      conflict('Duplicate', `${shown} is stated by more than one record${first.id && d.id ? ` (${first.id} and ${d.id})` : ''}; the first one is kept`);
      continue;
    }
    const neighbours = [...(acceptedAt.get(want.name) ?? []), ...[...records.values()].filter((r) => r.name === want.name && r.type !== want.type && !isOwned(recordKey(r)))];
    const clash = neighbours.find((r) => r.type === 'CNAME' || want.type === 'CNAME');
    if (clash) {
      conflict('CnameConflict', `${shown} conflicts with the ${clash.type} record at the same name: a CNAME must be the only record at its name`);
      continue;
    }
    const existing = records.get(key);
    if (existing && !isOwned(key)) {
      const otherOwner = marks.get(key)?.owner;
      conflict(
        'ForeignRecord',
        otherOwner && otherOwner !== ownerId
          ? `${shown} already exists in the zone and belongs to another Cloudwright installation (owner ${otherOwner})`
          : `${shown} already exists in the zone and was not written by Cloudwright; remove it at the DNS provider or choose another name`,
      );
      continue;
    }

    accepted.set(key, d);
    acceptedAt.set(want.name, [...(acceptedAt.get(want.name) ?? []), want]);
    if (existing && sameRecordSet(existing, want)) continue;
    if (!allowWrites) {
      held.push(d);
      continue;
    }
    if (existing) update.push(want);
    else {
      if (marks.get(key)?.record.values[0] !== ownershipText(ownerId)) createMarks.push(ownershipRecord(want.name, want.type, ownerId));
      create.push(want);
    }
  }

  // Our record sets nobody wants any more go, marks last; so do our marks left without a record set.
  const deleteRecords: RecordSet[] = [];
  const deleteMarks: RecordSet[] = [];
  for (const [key, record] of records) {
    if (!isOwned(key) || accepted.has(key)) continue;
    deleteRecords.push(record);
    const mark = marks.get(key);
    if (mark) deleteMarks.push(mark.record);
  }
  for (const [key, mark] of marks) {
    if (mark.owner === ownerId && !records.has(key) && !accepted.has(key)) deleteMarks.push(mark.record);
  }

  return {
    changes: {
      create: [...createMarks.sort(byNameThenType), ...create.sort(byNameThenType)],
      update: update.sort(byNameThenType),
      delete: [...deleteRecords.sort(byNameThenType), ...deleteMarks.sort(byNameThenType)],
    },
    conflicts,
    held,
  };
}
