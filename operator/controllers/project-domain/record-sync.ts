// Writes a project domain's DnsRecords into its zone (desired → plan → apply) and says, per record, how it
// fared: the input of the domain's RecordsApplied condition and of each DnsRecord's Ready condition.
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import type { ConditionUpdate } from '../../../src/conditions/index.ts';
import { desiredRecords } from '../../../src/dns/desired.ts';
import { planChanges } from '../../../src/dns/plan.ts';
import { isEmptyChanges, type DnsProvider } from '../../../src/dns/provider.ts';
import type { RecordsOutcome } from '../../../src/platform/domains/domain-status.ts';
import { ProjectDomainReasons } from '../../../src/apis/v1alpha1/project-domain.ts';

export interface RecordSyncResult {
  readonly outcome: RecordsOutcome;
  /** The Ready condition of each DnsRecord, by name. */
  readonly conditions: ReadonlyMap<string, ConditionUpdate>;
  /** Whether a change was sent to the provider. */
  readonly applied: boolean;
}

export interface RecordSyncInput {
  readonly provider: DnsProvider;
  readonly ownerId: string;
  readonly zoneId: string;
  /** The domain, normalized. */
  readonly domain: string;
  readonly records: readonly DnsRecord[];
  /** False while the domain is pending delegation: creates and updates are held, deletes happen. */
  readonly allowWrites: boolean;
  /** Records past this many (in priority order) are refused, however they were made. */
  readonly maxRecords?: number;
}

/**
 * Applies the records; provider errors propagate (`DnsProviderError`). `records` must be read from the
 * apiserver itself, not a cache: a record a lagging cache does not hold yet would look unwanted and be
 * deleted from the zone.
 */
export async function syncDomainRecords(input: RecordSyncInput): Promise<RecordSyncResult> {
  const current = await input.provider.listRecords(input.zoneId);
  const { desired, rejected } = desiredRecords(input.domain, input.records, input.maxRecords);
  const plan = planChanges({ domain: input.domain, ownerId: input.ownerId, desired, current, allowWrites: input.allowWrites });
  const applied = !isEmptyChanges(plan.changes);
  if (applied) await input.provider.applyChanges(input.zoneId, plan.changes);
  const conditions = new Map<string, ConditionUpdate>();
  const lines: string[] = [];
  for (const r of rejected) {
    conditions.set(r.id, { type: 'Ready', status: 'False', reason: r.reason, message: r.message });
    lines.push(`${r.id}: ${r.message}`);
  }
  for (const c of plan.conflicts) {
    if (!c.id || conditions.has(c.id)) continue;
    conditions.set(c.id, { type: 'Ready', status: 'False', reason: c.reason, message: c.message });
    lines.push(`${c.id}: ${c.message}`);
  }
  const heldIds = new Set(plan.held.map((h) => h.id));
  let held = 0;
  let ok = 0;
  for (const d of desired) {
    if (!d.id || conditions.has(d.id)) continue;
    if (heldIds.has(d.id)) {
      held++;
      conditions.set(d.id, {
        type: 'Ready',
        status: 'False',
        reason: ProjectDomainReasons.DelegationPending,
        message: `Waiting for the delegation of ${input.domain}: the record is written once the domain is managed.`,
      });
    } else {
      ok++;
      conditions.set(d.id, { type: 'Ready', status: 'True', reason: ProjectDomainReasons.Applied, message: `${d.name} ${d.type} is in the zone.` });
    }
  }
  return { outcome: { applied: ok, held, rejected: lines }, conditions, applied };
}
