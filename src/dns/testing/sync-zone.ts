// Test helper: one reconciliation of a zone's records: read, plan, apply when there is something to apply. The Route 53
// provider's test drives a real zone with it; the ProjectDomain controller's own, which also writes each
// DnsRecord's condition, is operator/controllers/project-domain/record-sync.ts.
import { planChanges, type DesiredRecordSet, type Plan } from '../plan.ts';
import { isEmptyChanges, type DnsProvider } from '../provider.ts';

export interface SyncZoneInput {
  readonly provider: DnsProvider;
  readonly zoneId: string;
  readonly domain: string;
  readonly ownerId: string;
  readonly desired: readonly DesiredRecordSet[];
  /** False while the domain is pending delegation: only deletes are applied. */
  readonly allowWrites: boolean;
}

export interface SyncZoneResult {
  readonly plan: Plan;
  /** Whether a change was sent to the provider. */
  readonly applied: boolean;
}

/** Lists the zone, plans and applies the change if it is not empty. Provider errors propagate (`DnsProviderError`). */
export async function syncZone(input: SyncZoneInput): Promise<SyncZoneResult> {
  const current = await input.provider.listRecords(input.zoneId);
  const plan = planChanges({ domain: input.domain, ownerId: input.ownerId, desired: input.desired, current, allowWrites: input.allowWrites });
  if (isEmptyChanges(plan.changes)) return { plan, applied: false };
  await input.provider.applyChanges(input.zoneId, plan.changes);
  return { plan, applied: true };
}
