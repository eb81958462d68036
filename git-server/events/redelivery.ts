// The payload of a past delivery, rebuilt from the log for a redelivery: the events the target's filter passes
// of the entries the delivery covered, encoded as the bridge encodes a batch. The same entries and the same filter
// give the same bytes, hence the same delivery id; anything else (the filter changed since, the repository was
// replaced) gives another, and is refused rather than posted under the old id.
import type { RepoStore } from '../../src/repo-store/repo-store.ts';
import { deliveryId } from './signing.ts';
import type { DeliveryTarget } from './delivery-target.ts';
import { encodeBatch, refEventsOf, type RefEvent } from './ref-event.ts';

export type RebuiltPayload =
  | { readonly kind: 'rebuilt'; readonly body: Buffer; readonly events: readonly RefEvent[] }
  /** Log retention retired entries the delivery covered. */
  | { readonly kind: 'gone'; readonly logStart: number }
  /** The entries or the filter give other events than were posted. */
  | { readonly kind: 'changed' };

/** Rebuilds the body of the delivery `deliveryIdWanted` that covered seqs `fromSeq..toSeq` of `repo` for `target`. */
export async function rebuildPayload(
  repos: Pick<RepoStore, 'listLog'>,
  repo: string,
  target: Pick<DeliveryTarget, 'filter'>,
  delivery: { readonly fromSeq: number; readonly toSeq: number; readonly deliveryId: string },
): Promise<RebuiltPayload> {
  const events: RefEvent[] = [];
  let from = delivery.fromSeq;
  while (from <= delivery.toSeq) {
    const page = await repos.listLog(repo, from, { limit: Math.min(100, delivery.toSeq - from + 1) });
    if (page.logStart > from) return { kind: 'gone', logStart: page.logStart };
    if (page.entries.length === 0) return { kind: 'changed' };
    for (const entry of page.entries) {
      if (entry.seq > delivery.toSeq) break;
      const all = refEventsOf(repo, entry);
      events.push(...(target.filter ? all.filter(target.filter) : all));
      from = entry.seq + 1;
    }
  }
  const body = encodeBatch(events);
  return deliveryId(body) === delivery.deliveryId ? { kind: 'rebuilt', body, events } : { kind: 'changed' };
}
