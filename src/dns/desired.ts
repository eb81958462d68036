// What a project domain's zone should hold: its DnsRecord objects (written by users through the API or
// kubectl, and by the platform for app hostnames), validated and in priority order. Pure; the input of plan.ts.
import type { DnsRecord } from '../apis/v1alpha1/dns-record.ts';
import { findCondition } from '../conditions/index.ts';
import type { DesiredRecordSet } from './plan.ts';
import { checkExclusivity, validateStoredRecord, type ExistingRecord, type FieldError } from './records.ts';

/**
 * A DnsRecord that cannot be written: `Invalid` (its own fields), `Conflict` (with an earlier record) or
 * `TooManyRecords` (past the domain's limit, in priority order).
 */
export interface RejectedDnsRecord {
  readonly id: string;
  readonly reason: 'Invalid' | 'Conflict' | 'TooManyRecords';
  readonly errors: readonly FieldError[];
  /** All errors in one line, for a condition message. */
  readonly message: string;
}

export interface DesiredRecords {
  readonly desired: readonly DesiredRecordSet[];
  readonly rejected: readonly RejectedDnsRecord[];
}

/**
 * Platform-owned records first (a record written by hand never displaces one the platform wrote for an app),
 * then the oldest first, then by name: the order in which collisions are decided.
 */
function priority(a: DnsRecord, b: DnsRecord): number {
  const owned = Number(Boolean(b.spec.owner)) - Number(Boolean(a.spec.owner));
  if (owned !== 0) return owned;
  const ta = a.metadata?.creationTimestamp ?? '';
  const tb = b.metadata?.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

/**
 * The record sets the DnsRecords of `domain` (a normalized domain name) ask for. Records being deleted are
 * left out, so the plan removes them; invalid ones, ones colliding with an earlier record (same name and
 * type, or a CNAME sharing its name) and ones past `maxRecords` are rejected with the reason and stay out of
 * the zone.
 */
export function desiredRecords(domain: string, records: readonly DnsRecord[], maxRecords = Infinity): DesiredRecords {
  const desired: DesiredRecordSet[] = [];
  const rejected: RejectedDnsRecord[] = [];
  const accepted: ExistingRecord[] = [];
  for (const record of [...records].filter((r) => !r.metadata?.deletionTimestamp).sort(priority)) {
    const id = record.metadata?.name ?? '';
    const check = validateStoredRecord(record.spec, domain);
    if (!check.ok) {
      rejected.push({ id, reason: 'Invalid', errors: check.errors, message: check.errors.map((e) => e.message).join('; ') });
      continue;
    }
    const { fqdn, type, values, ttl } = check.record;
    const clash = checkExclusivity({ fqdn, type }, accepted, domain);
    if (clash) {
      rejected.push({ id, reason: 'Conflict', errors: [clash], message: clash.message });
      continue;
    }
    accepted.push({ fqdn, type, id, ownerApp: record.spec.owner?.resourceId });
    desired.push({ id, name: fqdn, type, ttl, values });
  }
  if (desired.length <= maxRecords) return { desired, rejected };
  // Past the limit, the records already in the zone stay (a new one never evicts a live one), then the oldest.
  const byId = new Map(records.map((r) => [r.metadata?.name ?? '', r]));
  const live = (id: string) => (findCondition(byId.get(id)?.status?.conditions, 'Ready')?.status === 'True' ? 0 : 1);
  const created = (id: string) => byId.get(id)?.metadata?.creationTimestamp ?? '';
  const kept = new Set(
    desired
      .map((d) => d.id ?? '')
      .sort((a, b) => live(a) - live(b) || created(a).localeCompare(created(b)) || a.localeCompare(b))
      .slice(0, maxRecords),
  );
  const message = `the domain has ${maxRecords} records, the most it may have; delete one for this one to be written`;
  for (const d of desired) if (!kept.has(d.id ?? '')) rejected.push({ id: d.id ?? '', reason: 'TooManyRecords', errors: [{ field: 'name', message }], message });
  return { desired: desired.filter((d) => kept.has(d.id ?? '')), rejected };
}

/**
 * Why `written`, just written by the API, must be undone, or `undefined` when it may stand: it collides
 * with a record the zone sync keeps instead ({@link desiredRecords}), or it is kept only because its name
 * sorts before that of a colliding record created in the same second. Creation times have whole seconds,
 * so a writer in another process may have written that one first, checked, seen nothing in its way and
 * answered 201 already; giving way leaves at most one writer with a 201. (Both may give way, each having
 * seen the other: then both are refused and nothing is lost.)
 */
export function collisionRefusal(domain: string, records: readonly DnsRecord[], written: DnsRecord): string | undefined {
  const id = written.metadata?.name;
  const lost = (all: readonly DnsRecord[]) => desiredRecords(domain, all).rejected.find((r) => r.id === id && r.reason === 'Conflict');
  const asListed = lost(records);
  if (asListed) return asListed.message;
  // The same records with `written` last among its second: it sorts after every record of that second,
  // before any of the next ('2026-01-01T00:00:00Z~' > '…:00Z', < '…:01Z').
  const created = written.metadata?.creationTimestamp;
  if (!created) return undefined;
  const tieLost = lost(records.map((r) => (r.metadata?.name === id ? { ...r, metadata: { ...r.metadata, creationTimestamp: `${created}~` } } : r)));
  return tieLost ? `another request wrote a colliding record in the same second: ${tieLost.message}` : undefined;
}
