// What a project domain's zone should hold: its DnsRecord objects (written by users through the API or
// kubectl, and by the platform for app hostnames), validated and in priority order. Pure; the input of plan.ts.
import type { DnsRecord } from '../apis/v1alpha1/dns-record.ts';
import type { DesiredRecordSet } from './plan.ts';
import { checkExclusivity, validateStoredRecord, type ExistingRecord, type FieldError } from './records.ts';

/** A DnsRecord that cannot be written: `Invalid` (its own fields) or `Conflict` (with an earlier record). */
export interface RejectedDnsRecord {
  readonly id: string;
  readonly reason: 'Invalid' | 'Conflict';
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
 * left out, so the plan removes them; invalid ones and ones colliding with an earlier record (same name and
 * type, or a CNAME sharing its name) are rejected with the reason and stay out of the zone.
 */
export function desiredRecords(domain: string, records: readonly DnsRecord[]): DesiredRecords {
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
  return { desired, rejected };
}
