import type { TenantReplicaPort, Fencing } from './replication-port.ts';
import type { TenantMeta, WriteOver } from './tenant-meta.ts';

/** A tenant this cw-db serves, with what is going on with it. */
export interface Entry {
  meta: TenantMeta;
  /** The etag of `meta` as last read or written here (null: none in the bucket): its next write goes over it. */
  metaEtag?: WriteOver;
  /** The same of the usage counters' record. */
  usageEtag?: WriteOver;
  /** Settles once the tenant's data is on disk (restored if need be) and its generation started. */
  ready: Promise<void>;
  replica?: TenantReplicaPort;
  /** The current generation's base snapshot upload (it goes on while the tenant serves); a deletion waits for it. */
  baseUpload?: Promise<void>;
  /** The timer's flush and maintain of this tenant, while it runs. */
  shipping?: Promise<void> | undefined;
  /**
   * The flush of `shipping`, while it uploads: what counts against the rounds' cap. Its maintain after may wait for
   * the tenant's lock (up to a minute behind an open transaction), and counted, a project's transactions held every
   * place and no other tenant shipped (review-171 F1).
   */
  uploading?: Promise<void> | undefined;
  /**
   * The replica's work under the tenant's lock (maintain's shipping and checkpoint, a generation's checkpoint), once it
   * has the lock: it counts against the rounds' cap as an upload does; its wait for the lock does not (review-171 F1).
   */
  maintaining?: Promise<void> | undefined;
  /**
   * A snapshot maintain took, while it uploads (the tenant's next rounds go on meanwhile); a deletion waits for it. It
   * holds a place of the rounds' cap too: uploads not counted went beyond it, on the same connections (review-174).
   */
  snapshotUpload?: Promise<void> | undefined;
  /** While an in-place restore replaces the file: the timer leaves the tenant alone (the restore ships it itself). */
  restoring?: boolean;
  /** Several replicas: the lease this replica owns the tenant under (what it writes carries the epoch). */
  fencing?: Fencing;
}
