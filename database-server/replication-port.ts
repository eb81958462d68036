/** One tenant's copy in the bucket, as the tenant directory drives it (replication/ implements it). */
export interface TenantReplicaPort {
  /** Starts a new generation with a snapshot of the local file as its base (on every open of the tenant): resolves once the file is checkpointed; `upload` settles when its copy is in the bucket (segments wait for it). */
  startGeneration(): Promise<{ upload: Promise<void> }>;
  /** The same while the caller holds the tenant lock already (an in-place restore); `upload` settles when the base is in the bucket. */
  startGenerationLocked(): Promise<{ upload: Promise<void> }>;
  /** Under the tenant lock, after a pipeline: queues what was committed (never a transaction still open); answers its stamp (undefined: nothing). The lock is held until it settles. */
  capture(): Promise<number | undefined>;
  /** Ships everything captured so far; resolves once it is in the bucket. */
  flush(): Promise<void>;
  /**
   * Checkpoints a large WAL and takes snapshots now and then (takes the tenant lock itself when it must). Resolves
   * once that is done; `snapshot`, when one was taken, settles once it is in the bucket (a minute for a 1 GiB
   * database: the next rounds of the tenant must not wait for it, or its WAL grows meanwhile).
   */
  maintain(): Promise<{ snapshot?: Promise<void> }>;
  /**
   * Under the tenant lock, after a capture that found a commit: when the WAL is past its bound, ships what waits and
   * checkpoints (the writer that passed it waits for its own uploads).
   */
  boundLocked(): Promise<void>;
  /** Under the tenant lock, before an idle database's connection closes: seals what was captured and empties the WAL. */
  restLocked(): Promise<void>;
  /**
   * Resolves once no snapshot copy of the local file is being taken (copies run outside the tenant lock): await it
   * before anything that writes the file other than this replica's checkpoints, such as closing the connection
   * (SQLite checkpoints on close), a restore over it, or another replica's generation.
   */
  whenCopied(): Promise<void>;
  /** Whether a snapshot copy of the local file is being taken now (an idle close would wait for it under the lock). */
  readonly copying: boolean;
  /** Whether the WAL, as the last capture found it, is past its bound (what `boundLocked` checkpoints). */
  readonly pastWalBound: boolean;
  readonly pendingBytes: number;
}

/** What the replica needs from the tenant directory: its lock and its connection's checkpoint. */
export interface ReplicaHost {
  /** Runs `fn` while holding the tenant's lock (waiting for a stream's transaction to end first). */
  locked<T>(fn: () => T | Promise<T>): Promise<T>;
  /** Runs `PRAGMA wal_checkpoint(TRUNCATE)` on the tenant's connection; call only inside `locked`. */
  checkpoint(): Promise<void>;
}

/** A leased owner's writes (database-server/cluster): under its epoch, and only while its lease is surely held. */
export interface Fencing {
  readonly epoch: number;
  /** Throws when the lease is no longer surely held: the upload it precedes is not made. */
  guard(): void;
}

/** Where a restore of the latest state stopped: the generation and the first of its segments not applied. */
export interface RestoredPoint {
  readonly generation: string;
  readonly nextSeq: number;
}

/** The bucket side of durability: replicas, restores, windows, deletion and pruning. */
export interface Replication {
  replica(tenant: string, databasePath: string, host: ReplicaHost, fencing?: Fencing): TenantReplicaPort;
  /**
   * Writes `tenant`'s database as of `at` (default: the latest) to `targetPath`; null when the bucket has none.
   * `asked`: a tenant asked for it (a copy, an in-place restore), not a database coming back to serve.
   */
  restore(tenant: string, targetPath: string, at?: number, options?: { asked?: boolean }): Promise<{ restoredTo: number; reached: RestoredPoint } | null>;
  /** Where a restore of the latest state would stop, without restoring; null when the bucket has no snapshot. */
  historyEnd(tenant: string): Promise<RestoredPoint | null>;
  /** The highest lease epoch anything of the tenant in the bucket was written under (0: none, or written without leases). */
  highestEpoch(tenant: string): Promise<number>;
  /** Records that the owner of `epoch` took the tenant over from `reached` (null: from nothing), before it writes anything else. */
  recordTakeover(tenant: string, epoch: number, reached: RestoredPoint | null): Promise<void>;
  window(tenant: string): Promise<{ earliest: number; latest: number } | null>;
  delete(tenant: string): Promise<void>;
  prune(tenant: string, retentionMs: number): Promise<void>;
}
