// Publishing a ref transaction to the log: upload the pack, claim log slot head+1 by conditional create,
// then compare-and-swap the manifest. docs/repository-storage.md explains the protocol and its crash cases;
// the short form is:
//
// * A log object at seq s is written only by a writer that knew the state at s-1 and validated its old
//   values against it, and it is never overwritten (except a leftover of a deleted incarnation). So the
//   objects past the head form a run head+1, head+2, ... of *prepared* transitions, each valid on the last.
// * A writer that finds its slot taken reads the entry there, applies it, re-validates its own updates and
//   tries the next slot. Its CAS then commits the prepared entries before its own ("roll forward"): an
//   entry whose writer died before its CAS becomes visible with the next publish, and nobody is blocked.
// * A writer whose CAS fails re-reads the manifest: a head at or past its seq means someone committed its
//   entry for it (or its own CAS landed and the answer was lost); otherwise it swaps again.
import { randomBytes } from 'node:crypto';
import type { Registry } from 'prom-client';
import type { ObjectStore, PutBody } from '../object-store/object-store.ts';
import { bodyLength, bodySha256 } from '../object-store/put-body.ts';
import { InvalidPublishError, PublishContentionError, PublishIncompleteError, PublishOutcomeUnknownError, RepoNotFoundError } from './errors.ts';
import type { HeadCache, RepoHead } from './head-cache.ts';
import type { KeyedMutex } from '../collections/keyed-mutex.ts';
import { logKey, manifestKey } from './layout.ts';
import { PACK_SHA256, packObjectName } from './pack-object.ts';
import { encodeLogEntry, type EntryKind, type LogEntry, type PackRef } from './log-entry.ts';
import type { LogReader } from './log-reader.ts';
import { encodeManifest, manifestAt } from './manifest.ts';
import { uploadPackObjects } from './pack-upload.ts';
import { markOrphanedPack, markPending } from './pending.ts';
import { checkRefUpdates, rejectAll, validateRefUpdates, type RefResult, type RefUpdate } from './refs.ts';
import type { RepoPath } from './repo-path.ts';
import { applyEntries } from './state.ts';

export interface PackUpload {
  /** The pack as `git index-pack` accepted it. */
  readonly body: PutBody;
  /** Hex SHA-256 of `body`, if the caller hashed it while spooling; the store verifies it either way. */
  readonly sha256?: string;
  /** The pack's `.idx`, so readers need not index the pack again. */
  readonly idx?: PutBody;
}

export interface PublishRequest {
  readonly kind: EntryKind;
  /** At least one; each names a distinct ref. A create has the zero oid as `old`, a delete as `new`. */
  readonly refUpdates: readonly RefUpdate[];
  readonly pack?: PackUpload;
  readonly pusher: string;
  readonly requestId: string;
  /** All updates or none (git's `atomic` capability); otherwise each stale update is rejected alone. */
  readonly atomic: boolean;
  /**
   * Publish only onto a state with no refs (an import or an initialize fills a pristine repository, all or
   * nothing). Checked in every round against the state with the entries others wrote meanwhile, as the old
   * values are: two such publishes of disjoint refs cannot both land. Otherwise every update is rejected with
   * `not pristine` and nothing is written.
   */
  readonly onlyIfNoRefs?: boolean;
  /**
   * Start from a head this process read at most this long ago instead of asking the store again (a push
   * revalidated it when its request began). Safe at any age: a stale start only costs a lost log slot, and a
   * rejection is confirmed against a fresh read before it is answered. Keep it far below log retention's
   * grace period: a slot below `logStart` must never be claimed again.
   */
  readonly headMaxAgeMs?: number;
}

export type PublishResult =
  /** A log entry at `seq` is committed; `head` is at `seq` or later. Stale updates are rejected in `refs`. */
  | { readonly outcome: 'published'; readonly seq: number; readonly head: RepoHead; readonly refs: readonly RefResult[] }
  /** Nothing was written: every update was rejected (or, atomic, one was). */
  | { readonly outcome: 'rejected'; readonly head: RepoHead; readonly refs: readonly RefResult[] }
  /** Nothing was written: every update was a no-op (old = new = current). */
  | { readonly outcome: 'unchanged'; readonly head: RepoHead; readonly refs: readonly RefResult[] };

export interface PublishContext {
  readonly store: ObjectStore;
  readonly heads: HeadCache;
  readonly log: LogReader;
  readonly lock: KeyedMutex;
  readonly now: () => Date;
  readonly registry: Registry;
  /** Claim or CAS rounds before giving up with `PublishContentionError`. */
  readonly maxRounds: number;
  /** The refs a repository may hold: creates past it are rejected with `too many refs` (refs.ts). */
  readonly maxRefs: number;
}

const JSON_TYPE = 'application/json';
// After every this many lost slots, re-read the manifest instead of reading entries one by one.
const REBASE_AFTER = 4;

/** Publishes `request` to `repo`'s log. See the file comment; docs/repository-storage.md has the details. */
export async function publish(ctx: PublishContext, repo: RepoPath, request: PublishRequest): Promise<PublishResult> {
  if (request.refUpdates.length === 0) throw new InvalidPublishError('a publish needs at least one ref update');
  checkRefUpdates(request.refUpdates); // before the upload; the oid length once the head tells the format
  // The pack does not depend on the head: its upload overlaps the manifest read (and any wait for the lock). Not
  // when the head this process read lately refuses every update: a rejected publish leaves its pack in the bucket
  // in no head, where no storage quota counts it, so such a pack goes up only once a round accepts an update.
  let upload: Promise<PackRef | null> | undefined;
  const startUpload = (): Promise<PackRef | null> => {
    if (!upload) {
      upload = request.pack ? uploadPack(ctx.store, repo, request.pack) : Promise.resolve(null);
      upload.catch(() => {}); // observed below; a rejected publish only waits for it to settle
    }
    return upload;
  };
  const known = request.headMaxAgeMs === undefined ? undefined : ctx.heads.cachedWithin(repo, request.headMaxAgeMs);
  if (!known || !refusesEvery(known, request, ctx.maxRefs)) void startUpload();
  // Whether the uploaded pack is what the head now lists, under its own key: if not, it lies in the bucket in no
  // head (a publish that lost, or one whose pack was live already, whose copy the manifest leaves out; and a copy
  // may leave half of the plain key behind), and the repository is marked so that gc deletes it once its grace
  // period is over. Unmarked, a tenant resending one pack stored a copy per push that no quota counted.
  let packListed = false;
  try {
    return await ctx.lock.run(repo.full, async () => {
      const recent = request.headMaxAgeMs === undefined ? undefined : ctx.heads.cachedWithin(repo, request.headMaxAgeMs);
      const start = recent ?? (await ctx.heads.read(repo, true));
      // Whether `base` came from the store within this publish: only then may a rejection be answered.
      let confirmed = recent === undefined;
      checkRefUpdates(request.refUpdates, start.objectFormat);
      const nonce = randomBytes(16).toString('hex');
      let base = start;
      let prepared: LogEntry[] = []; // entries past base.seq that others wrote and nobody committed yet
      let lost = 0;

      for (let round = 0; round < ctx.maxRounds; round++) {
        const state = applyEntries(base, prepared);
        const verdict =
          request.onlyIfNoRefs && state.refs.size > 0
            ? rejectAll(request.refUpdates, 'not pristine')
            : validateRefUpdates(state.refs, request.refUpdates, request.atomic, base.objectFormat, ctx.maxRefs);
        if (verdict.rejected && !confirmed) {
          // The remembered head may be behind the store: an old value that looks stale may be current.
          base = await readFresh(ctx, repo, base);
          prepared = [];
          confirmed = true;
          continue;
        }
        if (verdict.accepted.length === 0) {
          await upload?.then(
            () => {},
            () => {},
          );
          // A rejection seen against prepared entries must be visible to the client's next fetch: commit them.
          const head = prepared.length > 0 ? await commit(ctx, repo, base, prepared) : base;
          return { outcome: verdict.rejected ? 'rejected' : 'unchanged', head, refs: verdict.results };
        }
        const entry: LogEntry = {
          repoId: base.repoId,
          seq: state.seq + 1,
          kind: request.kind,
          at: ctx.now().toISOString(),
          pusher: request.pusher,
          requestId: request.requestId,
          nonce,
          refUpdates: verdict.accepted,
          pack: await startUpload(),
        };
        const claim = await claimSlot(ctx, repo, entry);
        if (claim.kind === 'claimed') {
          const head = await commit(ctx, repo, base, [...prepared, claim.entry]).catch((err: unknown) => {
            if (err instanceof RepoNotFoundError || err instanceof PublishOutcomeUnknownError) throw err;
            throw new PublishIncompleteError(repo.full, err);
          });
          const pack = claim.entry.pack;
          packListed = pack !== null && pack.copy === undefined && head.packs.some((p) => packObjectName(p) === packObjectName(pack));
          await markPending(ctx.store, ctx.registry, repo, start, head, ctx.now());
          return { outcome: 'published', seq: claim.entry.seq, head, refs: verdict.results };
        }
        if (claim.kind === 'taken') prepared.push(claim.entry);
        if (++lost % REBASE_AFTER === 0) {
          const fresh = await readFresh(ctx, repo, base);
          prepared = prepared.filter((e) => e.seq > fresh.seq);
          base = fresh;
          confirmed = true;
        }
      }
      throw new PublishContentionError(repo.full);
    });
  } finally {
    if (upload && request.pack && !packListed) {
      await upload.catch(() => null);
      await markOrphanedPack(ctx.store, ctx.registry, repo, ctx.now());
    }
  }
}

/** Whether `head` refuses every update of `request` (all stale, conflicting, past the ref limit or no-ops; a pristine-only publish onto refs). */
function refusesEvery(head: RepoHead, request: PublishRequest, maxRefs: number): boolean {
  checkRefUpdates(request.refUpdates, head.objectFormat);
  if (request.onlyIfNoRefs && head.refs.size > 0) return true;
  return validateRefUpdates(head.refs, request.refUpdates, request.atomic, head.objectFormat, maxRefs).accepted.length === 0;
}

/**
 * Commits the prepared entries past the head (log entries whose writers died before their manifest swap, or
 * have not made it yet), as the next publish would, and answers the head after them. Maintenance calls it
 * before it decides which packs are unreferenced: a prepared entry's pack is in no manifest until then.
 */
export async function rollForward(ctx: PublishContext, repo: RepoPath): Promise<RepoHead> {
  return ctx.lock.run(repo.full, async () => {
    const base = await ctx.heads.read(repo, true);
    const prepared = await preparedAfter(ctx, repo, base);
    if (prepared.length === 0) return base;
    return commit(ctx, repo, base, prepared).catch(async (err: unknown) => {
      // Someone else committed them and retention folded them since: they are in, which is all we wanted.
      if (err instanceof PublishOutcomeUnknownError) return ctx.heads.read(repo, true);
      throw err;
    });
  });
}

/** The run of prepared entries right after `base` (slots base.seq+1, +2, … that hold an entry of its incarnation). */
async function preparedAfter(ctx: PublishContext, repo: RepoPath, base: RepoHead): Promise<LogEntry[]> {
  const entries: LogEntry[] = [];
  for (let seq = base.seq + 1; ; seq++) {
    const slot = await ctx.log.slot(repo, base.repoId, seq);
    if (slot?.kind !== 'entry') return entries;
    entries.push(slot.entry);
  }
}

/** The head as the store has it now, of the same incarnation as `base`. */
async function readFresh(ctx: PublishContext, repo: RepoPath, base: RepoHead): Promise<RepoHead> {
  const fresh = await ctx.heads.read(repo, true);
  if (fresh.repoId !== base.repoId) throw new RepoNotFoundError(repo.full);
  return fresh;
}

type Claim = { kind: 'claimed'; entry: LogEntry } | { kind: 'taken'; entry: LogEntry } | { kind: 'retry' };

/** Creates log slot `entry.seq`, or reports what holds it. */
async function claimSlot(ctx: PublishContext, repo: RepoPath, entry: LogEntry): Promise<Claim> {
  const key = logKey(repo, entry.seq);
  const body = encodeLogEntry(entry);
  if ((await ctx.store.put(key, body, { ifNoneMatch: '*', contentType: JSON_TYPE })).kind === 'written') return { kind: 'claimed', entry };
  const slot = await ctx.log.slot(repo, entry.repoId, entry.seq);
  if (!slot) return { kind: 'retry' };
  if (slot.kind === 'foreign') {
    // Another incarnation's entry. Only a leftover of a *deleted* one may be replaced: confirm with a fresh
    // read that the manifest is still ours and its head below the slot. Otherwise the repository was deleted
    // and created again under us, and the entry is that incarnation's committed history: never touch it.
    const fresh = await ctx.heads.read(repo, true);
    if (fresh.repoId !== entry.repoId) throw new RepoNotFoundError(repo.full);
    if (fresh.seq >= entry.seq) return { kind: 'retry' };
    const replaced = await ctx.store.put(key, body, { ifMatch: slot.etag, contentType: JSON_TYPE });
    return replaced.kind === 'written' ? { kind: 'claimed', entry } : { kind: 'retry' };
  }
  // Our own write whose answer was lost (the store's retry met it): the slot is ours.
  if (slot.entry.nonce === entry.nonce) return { kind: 'claimed', entry: slot.entry };
  return { kind: 'taken', entry: slot.entry };
}

/** Moves the manifest from `base` past `entries` (contiguous from base.seq+1); answers the head it saw last. */
async function commit(ctx: PublishContext, repo: RepoPath, base: RepoHead, entries: readonly LogEntry[]): Promise<RepoHead> {
  const target = (entries.at(-1) as LogEntry).seq;
  for (let round = 0; round < ctx.maxRounds; round++) {
    const next = manifestAt(base, applyEntries(base, entries), ctx.now());
    const cas = await ctx.store.put(manifestKey(repo), encodeManifest(next), { ifMatch: base.etag, contentType: JSON_TYPE });
    if (cas.kind === 'written') {
      const head: RepoHead = Object.freeze({ ...next, etag: cas.etag });
      ctx.heads.remember(repo, head);
      return head;
    }
    const fresh = await ctx.heads.read(repo, true);
    if (fresh.repoId !== base.repoId) throw new RepoNotFoundError(repo.full);
    if (fresh.seq >= target) {
      // Committed by another writer's roll-forward, or by our own CAS whose answer was lost. Unless retention
      // has since folded the seq away, in which case we cannot tell whose entry the slot held.
      if (target < fresh.logStart) throw new PublishOutcomeUnknownError(repo.full, target);
      return fresh;
    }
    entries = entries.filter((e) => e.seq > fresh.seq);
    base = fresh;
  }
  throw new PublishContentionError(repo.full);
}

/** Uploads the pack and its index under keys no gc has listed (pack-upload.ts). */
async function uploadPack(store: ObjectStore, repo: RepoPath, pack: PackUpload): Promise<PackRef> {
  const sha256 = pack.sha256 ?? (await bodySha256(pack.body));
  if (!PACK_SHA256.test(sha256)) throw new InvalidPublishError('the pack sha256 must be 64 lowercase hex digits');
  const at = await uploadPackObjects(store, repo, sha256, pack.body, pack.idx);
  return { ...at, size: bodyLength(pack.body), idxSize: pack.idx === undefined ? null : bodyLength(pack.idx) };
}
