// A per-repository webhook's delivery log: its last deliveries (50), newest first, in one bucket object beside its
// cursor (`events/webhooks/<uid>/deliveries.json`), with the count of consecutive failures and the last regular
// delivery, which its resource's status shows. Appended by compare-and-swap, so bridges on one bucket never lose
// each other's records, and every instance reads the same summary. A record holds what a delivery was, never its
// secret, its signature, its payload or the receiver's answer body: the payload is rebuilt from the log when a
// delivery is posted again.
import type { ETag, ObjectStore } from '../../src/object-store/object-store.ts';
import { CorruptObjectError, UnsupportedSchemaError } from '../../src/repo-store/errors.ts';
import { encodeJson, SCHEMA_VERSION } from '../../src/repo-store/json-fields.ts';
import { describeOutcome, type DeliveryOutcome } from './delivery-client.ts';
import type { SignatureScheme } from './delivery-target.ts';

/** Records kept per webhook. */
export const DELIVERY_LOG_LIMIT = 50;
/** Lost swaps before an append gives up. */
const MAX_ROUNDS = 20;

/** How a post ended, as a record says it (an abandoned post, during a drain, is not recorded). */
export type RecordedOutcome = Exclude<DeliveryOutcome['kind'], 'aborted'>;

export interface DeliveryRecord {
  /** The record's number, from 1, in the order the webhook's posts were recorded. */
  readonly id: number;
  /** `X-Service-Delivery` (and `webhook-id`): the SHA-1 of the body; the same for each post of the same payload. */
  readonly delivery_id: string;
  /** When the post started (ISO 8601). */
  readonly at: string;
  readonly repo: string;
  /** The seqs of the first and last event posted. */
  readonly from_seq: number;
  readonly to_seq: number;
  readonly events: number;
  /** How many times this payload was posted, this post included (as far as the log remembers). */
  readonly attempt: number;
  /** Posted again on request (`POST …/redeliver`), not by the bridge. */
  readonly redelivery: boolean;
  readonly scheme: SignatureScheme;
  readonly outcome: RecordedOutcome;
  /** The receiver's status, when it answered. */
  readonly status_code?: number;
  /** Why it failed, in one line (never the secret, the URL's path or the answer's body). */
  readonly error?: string;
  readonly duration_ms: number;
}

export interface DeliveryLog {
  /** The next record's id. */
  readonly nextId: number;
  /** Failed regular deliveries since the last one that succeeded (redeliveries not counted). */
  readonly consecutiveFailures: number;
  /** The last regular delivery (redeliveries aside), kept even once it leaves `records`. */
  readonly last?: DeliveryRecord;
  /** Newest first, at most {@link DELIVERY_LOG_LIMIT}. */
  readonly records: readonly DeliveryRecord[];
}

export const EMPTY_LOG: DeliveryLog = { nextId: 1, consecutiveFailures: 0, records: [] };

/** A record before it is appended: the log gives it its id and attempt. */
export type NewRecord = Omit<DeliveryRecord, 'id' | 'attempt'>;

/** The record of one post that ended with `outcome`. */
export function recordOf(
  fields: { deliveryId: string; at: Date; repo: string; seqs: readonly number[]; scheme: SignatureScheme; redelivery: boolean },
  outcome: DeliveryOutcome,
): NewRecord | undefined {
  if (outcome.kind === 'aborted') return undefined;
  const { seqs } = fields;
  return {
    delivery_id: fields.deliveryId,
    at: fields.at.toISOString(),
    repo: fields.repo,
    from_seq: seqs.length > 0 ? Math.min(...seqs) : 0,
    to_seq: seqs.length > 0 ? Math.max(...seqs) : 0,
    events: seqs.length,
    redelivery: fields.redelivery,
    scheme: fields.scheme,
    outcome: outcome.kind,
    ...('status' in outcome ? { status_code: outcome.status } : {}),
    ...(outcome.kind === 'delivered' ? {} : { error: describeOutcome(outcome) }),
    duration_ms: outcome.durationMs,
  };
}

/** The log at `key`, with the etag an append swaps from; an empty log when there is none. */
export async function readDeliveryLog(store: ObjectStore, key: string): Promise<{ log: DeliveryLog; etag?: ETag }> {
  const got = await store.get(key);
  if (got?.kind !== 'object') return { log: EMPTY_LOG };
  return { log: decodeDeliveryLog(key, got.body), etag: got.etag };
}

/** Appends `record` (compare-and-swap, retried when another bridge appended meanwhile); answers it and the new log. */
export async function appendDelivery(store: ObjectStore, key: string, record: NewRecord): Promise<{ record: DeliveryRecord; log: DeliveryLog }> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { log, etag } = await readDeliveryLog(store, key);
    const next = withRecord(log, record);
    const put = await store.put(key, encodeDeliveryLog(next.log), etag ? { ifMatch: etag, contentType: 'application/json' } : { ifNoneMatch: '*', contentType: 'application/json' });
    if (put.kind === 'written') return next;
  }
  throw new Error(`${key}: ${MAX_ROUNDS} compare-and-swap rounds lost in a row`);
}

/** `log` with `record` added: its id, its attempt, the failure count and the last delivery moved on. Pure. */
export function withRecord(log: DeliveryLog, record: NewRecord): { record: DeliveryRecord; log: DeliveryLog } {
  const earlier = log.records.find((r) => r.delivery_id === record.delivery_id);
  const full: DeliveryRecord = { id: log.nextId, ...record, attempt: (earlier?.attempt ?? 0) + 1 };
  const regular = !record.redelivery;
  return {
    record: full,
    log: {
      nextId: log.nextId + 1,
      consecutiveFailures: regular ? (record.outcome === 'delivered' ? 0 : log.consecutiveFailures + 1) : log.consecutiveFailures,
      ...(regular ? { last: full } : log.last ? { last: log.last } : {}),
      records: [full, ...log.records].slice(0, DELIVERY_LOG_LIMIT),
    },
  };
}

export function encodeDeliveryLog(log: DeliveryLog): Uint8Array {
  return encodeJson({ schema: SCHEMA_VERSION, next_id: log.nextId, consecutive_failures: log.consecutiveFailures, ...(log.last ? { last: log.last } : {}), records: log.records });
}

export function decodeDeliveryLog(key: string, bytes: Uint8Array): DeliveryLog {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new CorruptObjectError(key, 'not JSON');
  }
  const o = value as { schema?: unknown; next_id?: unknown; consecutive_failures?: unknown; last?: unknown; records?: unknown };
  if (typeof o?.schema === 'number' && o.schema > SCHEMA_VERSION) throw new UnsupportedSchemaError(key, o.schema);
  const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  if (o?.schema !== SCHEMA_VERSION || !count(o.next_id) || !count(o.consecutive_failures) || !Array.isArray(o.records)) throw new CorruptObjectError(key, 'not a delivery log');
  const records = o.records as DeliveryRecord[];
  if (!records.every((r) => typeof r === 'object' && r !== null && count(r.id) && typeof r.delivery_id === 'string')) throw new CorruptObjectError(key, 'a record is malformed');
  return { nextId: o.next_id as number, consecutiveFailures: o.consecutive_failures as number, ...(o.last ? { last: o.last as DeliveryRecord } : {}), records };
}
