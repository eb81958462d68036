// A served database's records in the bucket, its metadata (tokens, durability, limits) and its usage counters,
// written by compare-and-swap on the etag this replica last read or wrote (review-164 F10). Written blindly, an
// owner paused in the middle of a token change that resumed after another replica had taken the database over and
// rotated its tokens landed its older tokens last; the new owner, comparing with what it held in memory, never
// wrote them again, so the other replicas' token lookups and its own successor accepted the rotated-out token.
import type { Entry } from './tenant-entry.ts';
import type { StoredUsage, TenantMeta, TenantMetaStore } from './tenant-meta.ts';

/** What the records' writes need of the directory. */
export interface RecordFence {
  readonly metas: TenantMetaStore;
  /** Throws unless this replica still owns the tenant (several replicas: its lease read again); one cw-db always does. */
  confirmOwner(entry: Entry): Promise<void>;
}

/** Writes refused in a row before giving up: each refusal is another process's write, and none should come twice. */
const ATTEMPTS = 5;

/**
 * Writes the metadata `change` makes of the entry's, over the version last read or written here (the lease surely
 * held before each write). Refused, another process wrote it since: this replica must still own the database (a
 * successor's write is never written over), then the change is applied to what is stored now (a stale owner's late
 * write is replaced). Metadata gone meanwhile (deleted elsewhere) is not written again.
 */
export async function writeMeta(entry: Entry, change: (meta: TenantMeta) => TenantMeta, fence: RecordFence): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const meta = change(entry.meta);
    entry.fencing?.guard();
    const written = await fence.metas.put(meta, entry.metaEtag);
    if (written.kind === 'written') {
      entry.meta = meta;
      entry.metaEtag = written.etag;
      return;
    }
    if (attempt >= ATTEMPTS) throw new Error(`the metadata of ${entry.meta.tenant} kept changing under this replica's writes`);
    await fence.confirmOwner(entry);
    const current = await fence.metas.read(entry.meta.tenant);
    if (current === undefined) throw new Error(`the metadata of ${entry.meta.tenant} was deleted by another process`);
    entry.meta = current.value;
    entry.metaEtag = current.etag;
  }
}

/**
 * Writes the usage counters over the version last read or written here. Refused: this replica must still own the
 * database, and its counters (restored from the bucket when it took the database, counted on since) are written
 * over what another process wrote.
 */
export async function writeUsage(entry: Entry, usage: StoredUsage, fence: RecordFence): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    entry.fencing?.guard();
    const written = await fence.metas.putUsage(entry.meta.tenant, usage, entry.usageEtag);
    if (written.kind === 'written') {
      entry.usageEtag = written.etag;
      return;
    }
    if (attempt >= ATTEMPTS) throw new Error(`the usage of ${entry.meta.tenant} kept changing under this replica's writes`);
    await fence.confirmOwner(entry);
    entry.usageEtag = (await fence.metas.readUsage(entry.meta.tenant))?.etag ?? null;
  }
}
