// A delivery target's cursor in one repository: the last seq the target acknowledged with a 2xx. Stored in the
// bucket (`repos/<o>/<r>/events/cursor.json` for `events.webhook_url`) and moved only by compare-and-swap on its
// etag, so bridges racing on one bucket never move it past an entry one of them has not delivered, nor back.
import type { ETag, ObjectStore } from '../../src/object-store/object-store.ts';
import { encodeJson, Fields, SCHEMA_VERSION } from '../../src/repo-store/json-fields.ts';
import { seqToString } from '../../src/repo-store/seq.ts';

/** What a cursor object holds, with the etag a move must swap from. */
export interface Cursor {
  /** Every entry up to this seq was delivered (2xx). */
  readonly seq: number;
  /**
   * The repository incarnation it counts in (`repo_id`). A cursor of another incarnation (a leftover of a
   * deleted repository of the same name) does not count; one written without it (by hand) counts.
   */
  readonly repoId: string | undefined;
  readonly etag: ETag;
}

/** Lost swaps before a move gives up (another bridge keeps moving the same cursor). */
const MAX_ROUNDS = 20;

/**
 * `{"schema":1,"published_seq":"42","updated_at":"…","repo_id":"…"}`: the shape log retention reads
 * (src/repo-maintenance/events-cursor.ts reads `published_seq` and ignores the rest).
 */
export function encodeCursor(seq: number, repoId: string, now: Date): Uint8Array {
  return encodeJson({ schema: SCHEMA_VERSION, published_seq: seqToString(seq), updated_at: now.toISOString(), repo_id: repoId });
}

/** The cursor at `key`, or `undefined` when there is none. A malformed one throws `CorruptObjectError`. */
export async function readCursor(store: ObjectStore, key: string): Promise<Cursor | undefined> {
  const got = await store.get(key);
  if (got?.kind !== 'object') return undefined;
  const fields = Fields.parse(key, got.body);
  const repoId = fields.raw('repo_id');
  return { seq: fields.seq('published_seq'), repoId: typeof repoId === 'string' ? repoId : undefined, etag: got.etag };
}

/**
 * Whether `cursor` counts for incarnation `repoId` whose head is at `headSeq`. One of that incarnation always
 * counts: a bridge wrote it after delivering up to a head it read, so one ahead of `headSeq` means that head was
 * read before the other bridge's (the caller is caught up). One without `repo_id` (written by hand) counts up to
 * the head only, since it may be a leftover of a deleted incarnation.
 */
export function cursorCounts(cursor: Cursor | undefined, repoId: string, headSeq: number): cursor is Cursor {
  if (cursor === undefined) return false;
  return cursor.repoId === repoId || (cursor.repoId === undefined && cursor.seq <= headSeq);
}

/** The cursor moved (or found moved by someone else), or `undefined` when the repository changed incarnation. */
export type MoveResult = Cursor | undefined;

/**
 * Moves the cursor from `from` (as read; `undefined`: there was none) to `seq`, which the caller has delivered
 * every entry up to, from `from`'s seq on. A first cursor is created with `If-None-Match: *`, a later one swapped
 * with `If-Match` on its etag. When another bridge moved it meanwhile, the cursor is read again: at or past
 * `seq`, it is left alone (never moved back); behind `seq`, the swap is retried from there (the caller delivered
 * that range too). A cursor of another incarnation met in between means the repository was deleted and created
 * again: nothing is written, `undefined` is answered.
 */
export async function moveCursor(store: ObjectStore, key: string, from: Cursor | undefined, to: { seq: number; repoId: string; now: Date }): Promise<MoveResult> {
  // Never a swap that moves this incarnation's cursor back, whatever the caller read meanwhile.
  if (from?.repoId === to.repoId && from.seq >= to.seq) return from;
  let base = from;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const put = await store.put(key, encodeCursor(to.seq, to.repoId, to.now), base ? { ifMatch: base.etag, contentType: 'application/json' } : { ifNoneMatch: '*', contentType: 'application/json' });
    if (put.kind === 'written') return { seq: to.seq, repoId: to.repoId, etag: put.etag };
    const current = await readCursor(store, key);
    const ours = current !== undefined && (current.repoId === undefined || current.repoId === to.repoId);
    // Neither ours nor the leftover we set out to replace: a newer incarnation's bridge wrote it.
    if (current && !ours && current.repoId !== from?.repoId) return undefined;
    if (ours && current.seq >= to.seq) return current;
    base = current;
  }
  throw new Error(`${key}: ${MAX_ROUNDS} compare-and-swap rounds lost in a row`);
}
