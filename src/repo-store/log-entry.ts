// Log entries: `log/<seq>.json`, immutable once written. Each is one ref transaction (and optionally the pack
// carrying its objects), a transition from the state at seq-1 to the state at seq.
import { encodeJson, Fields, schemaFor } from './json-fields.ts';
import { packObjectJson, readPackObject, type PackObject } from './pack-object.ts';
import { isOid, isValidRefName, type RefUpdate } from './refs.ts';
import { seqToString } from './seq.ts';

/** `push`: from receive-pack. `ref_update`: from the JSON API. Maintenance will add its own kinds. */
export type EntryKind = 'push' | 'ref_update';
export const ENTRY_KINDS: readonly EntryKind[] = ['push', 'ref_update'];

/**
 * A published pack: the SHA-256 of its bytes names it, with its copy token when it lies under a copy's key (absent
 * otherwise); `idxSize` is null when no index was published.
 */
export interface PackRef extends PackObject {
  readonly size: number;
  readonly idxSize: number | null;
}

export interface LogEntry {
  /** The repository incarnation the entry belongs to (see `Manifest.repoId`). */
  readonly repoId: string;
  readonly seq: number;
  readonly kind: EntryKind;
  /** When the writer built it (ISO 8601, the writer's clock). */
  readonly at: string;
  /** The principal, as reported in events. */
  readonly pusher: string;
  /** The request id (`x-request-id`), reported in events as `correlation_id`. */
  readonly requestId: string;
  /** Random per publish: tells a writer whether the object at a seq is its own (after a lost response). */
  readonly nonce: string;
  /** Only the applied updates: rejected and no-op updates are not recorded. */
  readonly refUpdates: readonly RefUpdate[];
  readonly pack: PackRef | null;
}

const anyOid = (s: string) => isOid(s, 'sha1') || isOid(s, 'sha256');

export function encodeLogEntry(entry: LogEntry): Uint8Array {
  return encodeJson({ schema: schemaFor(entry.pack ? [entry.pack] : []), ...logEntryJson(entry) });
}

/** The entry's fields as the log stores them (seqs as decimal strings), for encoding and for `wal show`. */
export function logEntryJson(entry: LogEntry) {
  return {
    repoId: entry.repoId,
    seq: seqToString(entry.seq),
    kind: entry.kind,
    at: entry.at,
    pusher: entry.pusher,
    requestId: entry.requestId,
    nonce: entry.nonce,
    refUpdates: entry.refUpdates.map((u) => ({ ref: u.ref, old: u.old, new: u.new })),
    pack: entry.pack && packRefJson(entry.pack),
  };
}

/** Decodes the object at `key`; throws `CorruptObjectError` or `UnsupportedSchemaError`. */
export function decodeLogEntry(key: string, bytes: Uint8Array): LogEntry {
  const f = Fields.parse(key, bytes);
  return {
    repoId: f.string('repoId'),
    seq: f.seq('seq'),
    kind: f.string('kind', (k) => (ENTRY_KINDS as readonly string[]).includes(k)) as EntryKind,
    at: f.string('at'),
    pusher: f.string('pusher'),
    requestId: f.string('requestId'),
    nonce: f.string('nonce', (n) => n.length > 0),
    refUpdates: f.array('refUpdates', (u) => ({ ref: u.string('ref', isValidRefName), old: u.string('old', anyOid), new: u.string('new', anyOid) })),
    pack: f.nullable('pack', readPackRef),
  };
}

/** A pack as log entries, manifests and checkpoints store it: `copy` only when it has one, as every older object. */
export function packRefJson(pack: PackRef) {
  return { ...packObjectJson(pack), size: pack.size, idxSize: pack.idxSize };
}

export function readPackRef(p: Fields): PackRef {
  const idx = p.raw('idxSize');
  return { ...readPackObject(p), size: p.size('size'), idxSize: idx === null ? null : p.size('idxSize') };
}
