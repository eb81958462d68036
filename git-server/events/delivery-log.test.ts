import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { appendDelivery, DELIVERY_LOG_LIMIT, EMPTY_LOG, readDeliveryLog, recordOf, withRecord, type NewRecord } from './delivery-log.ts';

const at = new Date('2030-01-02T03:04:05.678Z');
const fields = { deliveryId: 'd1', at, repo: 'acme/site', seqs: [4, 4, 5], scheme: 'service' as const, redelivery: false };
const ok = recordOf(fields, { kind: 'delivered', status: 204, durationMs: 12, responseBytes: 0 }) as NewRecord;
const failed = (id: string) => recordOf({ ...fields, deliveryId: id }, { kind: 'rejected', status: 500, durationMs: 3, responseBytes: 9 }) as NewRecord;

describe('the delivery log', () => {
  it('records what a post was, and no answer body or secret', () => {
    expect(ok).toEqual({
      delivery_id: 'd1',
      at: at.toISOString(),
      repo: 'acme/site',
      from_seq: 4,
      to_seq: 5,
      events: 3,
      redelivery: false,
      scheme: 'service',
      outcome: 'delivered',
      status_code: 204,
      duration_ms: 12,
    });
    expect(recordOf(fields, { kind: 'timeout', durationMs: 10_000 })).toMatchObject({ outcome: 'timeout', error: 'the webhook did not answer within 10000 ms' });
    expect(recordOf(fields, { kind: 'aborted', durationMs: 1 })).toBeUndefined();
  });

  it('numbers records, counts attempts of one payload and consecutive failures; a success resets them; redeliveries count for neither', () => {
    let log = EMPTY_LOG;
    const add = (r: NewRecord) => {
      const next = withRecord(log, r);
      log = next.log;
      return next.record;
    };
    expect(add(failed('d1'))).toMatchObject({ id: 1, attempt: 1 });
    expect(add(failed('d1'))).toMatchObject({ id: 2, attempt: 2 });
    expect(log.consecutiveFailures).toBe(2);
    expect(add({ ...ok, redelivery: true })).toMatchObject({ id: 3, attempt: 3, redelivery: true });
    expect([log.consecutiveFailures, log.last?.id]).toEqual([2, 2]);
    expect(add(ok)).toMatchObject({ id: 4, attempt: 4 });
    expect([log.consecutiveFailures, log.last?.id, log.records.map((r) => r.id)]).toEqual([0, 4, [4, 3, 2, 1]]);
  });

  it(`keeps the last ${DELIVERY_LOG_LIMIT}, and the last regular delivery beyond them`, () => {
    let log = withRecord(EMPTY_LOG, ok).log;
    for (let i = 0; i < DELIVERY_LOG_LIMIT; i++) log = withRecord(log, { ...ok, delivery_id: `r${i}`, redelivery: true }).log;
    expect(log.records).toHaveLength(DELIVERY_LOG_LIMIT);
    expect(log.records.at(-1)?.id).toBe(2);
    expect(log.last?.id).toBe(1);
  });

  it('appends by compare-and-swap: concurrent appends all land', async () => {
    const store = new MemoryObjectStore();
    await Promise.all(Array.from({ length: 8 }, (_, i) => appendDelivery(store, 'k', failed(`d${i}`))));
    const { log } = await readDeliveryLog(store, 'k');
    expect(log.records.map((r) => r.id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(log.consecutiveFailures).toBe(8);
  });
});
