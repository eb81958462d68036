// Ref events: what the events bridge posts for every committed ref change (spec "Ref event" table). Pure: one
// log entry in, its events out, so the global webhook and any later per-repository webhook build the same bytes.
import type { EntryKind, LogEntry } from '../../src/repo-store/log-entry.ts';
import { seqToString } from '../../src/repo-store/seq.ts';

/** `_service.schema_version` of every event this build emits (spec "Versioning"). */
export const EVENT_SCHEMA_VERSION = 1;

export type RefAction = 'create' | 'update' | 'delete';
export type RefType = 'branch' | 'tag' | '';

/** One ref update of one log entry, as the webhook receives it. Field order follows the spec's table. */
export interface RefEvent {
  readonly action: RefAction;
  /** `branch` for `refs/heads/`, `tag` for `refs/tags/`, the empty string for any other ref. */
  readonly ref_type: RefType;
  /** The full ref name, `refs/heads/main`. */
  readonly ref_name: string;
  /** The object id before; the full zero oid on create (never empty). */
  readonly old: string;
  /** The object id after; the full zero oid on delete (never empty). */
  readonly new: string;
  /** The token's `sub`, or the end user a trusted proxy named. */
  readonly pusher: string;
  /** The writing request's id (an incoming `x-request-id` is honoured). */
  readonly correlation_id: string;
  /** `owner/repo` */
  readonly repo: string;
  readonly _service: {
    readonly schema_version: typeof EVENT_SCHEMA_VERSION;
    /** The WAL sequence of the entry, as a JSON string (a uint64 does not fit a JSON number). */
    readonly seq: string;
    /** `push` or `ref_update`; consumers must not depend on it. */
    readonly entry_kind: EntryKind;
    /** The same as `correlation_id`. */
    readonly request_id: string;
  };
}

const ZERO = /^0+$/;

/** The `ref_type` of a full ref name. */
export function refTypeOf(ref: string): RefType {
  if (ref.startsWith('refs/heads/')) return 'branch';
  if (ref.startsWith('refs/tags/')) return 'tag';
  return '';
}

/**
 * The events of one committed log entry, one per ref update in the entry's order. An update whose old and new
 * are equal is not an event (the log records only applied updates, so this is a guard, not a filter that ever
 * fires in practice). Maintenance writes no log entries, so checkpoints, compactions and HEAD changes never
 * reach here.
 */
export function refEventsOf(repo: string, entry: LogEntry): RefEvent[] {
  const events: RefEvent[] = [];
  for (const update of entry.refUpdates) {
    if (update.old === update.new) continue;
    const created = ZERO.test(update.old);
    const deleted = ZERO.test(update.new);
    events.push({
      action: created ? 'create' : deleted ? 'delete' : 'update',
      ref_type: refTypeOf(update.ref),
      ref_name: update.ref,
      // The log stores full zero oids already; the width of the other side keeps it full whatever the format.
      old: created ? '0'.repeat(update.new.length) : update.old,
      new: deleted ? '0'.repeat(update.old.length) : update.new,
      pusher: entry.pusher,
      correlation_id: entry.requestId,
      repo,
      _service: { schema_version: EVENT_SCHEMA_VERSION, seq: seqToString(entry.seq), entry_kind: entry.kind, request_id: entry.requestId },
    });
  }
  return events;
}

/** The body of one delivery: a JSON array of events, UTF-8. The same events always give the same bytes. */
export function encodeBatch(events: readonly RefEvent[]): Buffer {
  return Buffer.from(JSON.stringify(events));
}
