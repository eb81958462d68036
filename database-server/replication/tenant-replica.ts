// One tenant's continuous replica: captures committed WAL frames under the tenant lock, ships them as segments,
// and bounds the WAL with checkpoints and the replay length with snapshots.
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { newGenerationId, snapshotKey, tenantRoot } from './bucket-layout.ts';
import { copyDatabaseFile, uploadSnapshot } from './snapshot-file.ts';
import { SegmentQueue, type QueuedFrames } from './segment-queue.ts';
import { FRAME_HEADER_BYTES, parseWalHeader, WAL_HEADER_BYTES, type WalChecksum, type WalHeader } from './wal-format.ts';
import { readWal, walSize } from './wal-file.ts';
import { WalScanner } from './wal-scan.ts';
import { DEFAULT_MAX_WAL_BYTES } from '../sql/wal-bound.ts';

/** How much of the WAL a capture reads at a time: its memory, whatever the size of the transactions it finds. */
const SCAN_CHUNK_BYTES = 4 * 1024 * 1024;

export interface TenantReplicaOptions {
  readonly store: ObjectStore;
  /** Key prefix of all replicas (ends with `/` or is empty); the tenant's objects are under `${prefix}${tenant}/`. */
  readonly prefix: string;
  readonly tenant: string;
  /** The tenant's database file; its WAL is `${dbPath}-wal`. */
  readonly dbPath: string;
  /** Clock (ms since the epoch) stamped on commits and snapshots. */
  readonly now?: () => number;
  /** `maintain` checkpoints once the WAL is bigger than this (default 4 MiB). */
  readonly checkpointBytes?: number;
  /** `maintain` takes a snapshot once this many WAL bytes were captured since the last one (default 64 MiB). */
  readonly snapshotEveryBytes?: number;
  /** A segment holds commits up to this many bytes of frames (default 8 MiB; a larger commit goes alone). */
  readonly maxSegmentBytes?: number;
  /**
   * Past this size the WAL is checkpointed even while more than a segment waits to upload: what waits is shipped
   * under the tenant's lock first, so a tenant writing faster than its segments upload waits for them (default 256 MiB).
   */
  readonly maxWalBytes?: number;
  /** The lease epoch this replica writes under (database-server/cluster): it goes first in its generations' ids. */
  readonly epoch?: number;
  /** Called before every upload; throws to refuse it (the lease is no longer surely held): nothing is written. */
  readonly guard?: () => void;
  /** Copies the checkpointed file for a snapshot and answers the copy's path (default `copyDatabaseFile`; tests hold it). */
  readonly copy?: (dbPath: string) => Promise<string>;
}

/** Runs `PRAGMA wal_checkpoint(TRUNCATE)` on the tenant's connection (in a shard process, hence maybe async). */
export type Checkpoint = () => void | Promise<void>;

/** Where the next capture reads: inside a WAL whose header was read, after the last captured commit frame. */
interface WalPosition {
  readonly header: WalHeader;
  readonly offset: number;
  readonly checksum: WalChecksum;
}

/**
 * The replica of one tenant's database in the bucket. Every method but `flush` expects the tenant lock, and the
 * tenant's one connection to run with `wal_autocheckpoint = 0`: the WAL must only be reset through `maintain`
 * (or `startGeneration`), or commits would leave it unseen.
 */
export class TenantReplica {
  readonly #store: ObjectStore;
  readonly #root: string;
  readonly #dbPath: string;
  readonly #walPath: string;
  readonly #now: () => number;
  readonly #checkpointBytes: number;
  readonly #snapshotEveryBytes: number;
  readonly #queue: SegmentQueue;
  readonly #maxSegmentBytes: number;
  readonly #maxWalBytes: number;
  readonly #epoch: number | undefined;
  readonly #guard: () => void;
  readonly #copy: (dbPath: string) => Promise<string>;
  #started = false;
  /** Undefined at the start of an empty WAL (after a TRUNCATE checkpoint). */
  #wal: WalPosition | undefined;
  /** Counts the checkpoints asked for: queued frames name the WAL they are in, and are read only from it. */
  #walNumber = 0;
  #lastStamp = 0;
  #bytesSinceSnapshot = 0;
  #snapshotting: Promise<void> | undefined;
  /**
   * The copy of the file a snapshot is taken from, made after the lock is let go: nothing may checkpoint into the
   * file until it ends, so the tenant's requests do not wait for a copy that takes as long as the disk needs.
   */
  #copying: Promise<void> | undefined;
  /** The WAL's size at the last capture: what `bound`, run right after one under the same lock, goes by. */
  #walSeen = 0;
  /** The capture under way: captures run one after another (a WebSocket stream closed mid-request frees its lock early). */
  #capturing: Promise<unknown> = Promise.resolve();

  constructor(options: TenantReplicaOptions) {
    this.#store = options.store;
    this.#root = tenantRoot(options.prefix, options.tenant);
    this.#dbPath = options.dbPath;
    this.#walPath = `${options.dbPath}-wal`;
    this.#now = options.now ?? Date.now;
    this.#checkpointBytes = options.checkpointBytes ?? 4 * 1024 * 1024;
    this.#snapshotEveryBytes = options.snapshotEveryBytes ?? 64 * 1024 * 1024;
    this.#epoch = options.epoch;
    this.#guard = options.guard ?? (() => {});
    this.#copy = options.copy ?? copyDatabaseFile;
    this.#maxSegmentBytes = options.maxSegmentBytes ?? 8 * 1024 * 1024;
    this.#maxWalBytes = options.maxWalBytes ?? DEFAULT_MAX_WAL_BYTES;
    this.#queue = new SegmentQueue(options.store, this.#maxSegmentBytes, (frames, frameBytes, into) => this.#readFrames(frames, frameBytes, into), this.#guard);
  }

  /** Captured commits not yet in the bucket, in bytes of WAL frames. */
  get pendingBytes(): number {
    return this.#queue.pendingBytes;
  }

  /**
   * Starts a new generation whose base is a snapshot of the file right after `checkpoint` (a TRUNCATE checkpoint
   * on the tenant's connection). The checkpoint happens before this resolves, under the caller's lock; the copy
   * and the upload go on without it, and `upload` settles when the base is in the bucket (segments wait for it).
   * Continuity with an earlier generation is never assumed: another process may have written the file since.
   */
  async startGeneration(checkpoint: Checkpoint): Promise<{ upload: Promise<void> }> {
    // What was queued is in the new base; dropped before the checkpoint, or an upload could read an emptied WAL.
    this.#queue.drop();
    await this.#checkpoint(checkpoint);
    const time = this.#stamp();
    const generation = newGenerationId(time, this.#epoch);
    this.#guard();
    const base = this.#snapshot(snapshotKey(this.#root, generation, 0, time));
    this.#queue.startGeneration(this.#root, generation, base);
    this.#started = true;
    this.#bytesSinceSnapshot = 0;
    return { upload: base };
  }

  /**
   * Queues the transactions committed since the last capture, stamped with now(). Under the tenant lock; the frames
   * of a transaction still open are left for a later capture (the scan ends at the last commit); a stat when nothing
   * was written. Answers the stamp, or undefined when it found
   * nothing: the last write a user sees must be the time the restore window reaches, not a later reading. A big
   * transaction is read and checksummed a chunk at a time, yielding to the event loop between chunks, so other
   * tenants' requests are served meanwhile (a gigabyte is about a second's work; this tenant's lock is held). One
   * runs at a time: a second call waits for the first, so no commit is read twice from the same position.
   */
  capture(): Promise<number | undefined> {
    const run = this.#capturing.then(
      () => this.#capture(),
      () => this.#capture(),
    );
    this.#capturing = run.catch(() => {});
    return run;
  }

  async #capture(): Promise<number | undefined> {
    if (!this.#started) throw new Error('capture before startGeneration');
    const size = walSize(this.#walPath);
    this.#walSeen = size;
    const offset = this.#wal?.offset ?? 0;
    if (size < offset) throw new Error(`the WAL of ${this.#dbPath} shrank behind the replica: it was checkpointed outside maintain()`);
    if (size === offset) return undefined;
    const wal = this.#wal ?? this.#readHeader(size);
    if (!wal) return undefined;
    const frameBytes = FRAME_HEADER_BYTES + wal.header.pageSize;
    const end = wal.offset + Math.floor((size - wal.offset) / frameBytes) * frameBytes;
    if (end === wal.offset) return undefined;
    const scan = new WalScanner(wal.header, wal.offset, wal.checksum);
    const chunk = Math.max(1, Math.floor(SCAN_CHUNK_BYTES / frameBytes)) * frameBytes;
    const buffer = Buffer.allocUnsafe(Math.min(chunk, end - wal.offset));
    for (let at = wal.offset; at < end && scan.feed(readWal(this.#walPath, at, Math.min(chunk, end - at), buffer)); at += chunk) {
      if (at + chunk < end) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (scan.commits.length === 0) {
      this.#checkSameWal(wal.header);
      return undefined;
    }
    const ts = this.#stamp();
    this.#queue.push(scan.commits, ts, wal.header.pageSize, this.#walNumber);
    this.#bytesSinceSnapshot += scan.consumed - wal.offset;
    this.#wal = { header: wal.header, offset: scan.consumed, checksum: scan.checksum };
    return ts;
  }

  /** Resolves when every commit captured before the call is in the bucket. Needs no lock. */
  flush(): Promise<void> {
    return this.#queue.flush();
  }

  /**
   * Under the tenant lock: captures, then checkpoints (TRUNCATE, through `checkpoint`) when the WAL is bigger than
   * `checkpointBytes` or a snapshot is due, and starts that snapshot's copy. `upload` (when there is one) is the
   * snapshot's copy and upload, which need no lock; while the copy runs, the WAL is not checkpointed (unless past
   * `maxWalBytes`: then the checkpoint waits for the copy). Captured commits get their segment numbers before the checkpoint, so
   * the snapshot's name says exactly which segments it holds. The queued commits are read from the WAL as they
   * upload, so they are shipped before it is emptied, under the lock: when they are a segment or less (what was
   * committed since the caller's flush). More waits for a later call, after a flush that needs no lock, so a
   * tenant's requests do not wait for a big transaction's upload, unless the WAL is past `maxWalBytes`: a tenant
   * writing faster than its segments upload never let a checkpoint happen, and its WAL grew to fill the disk
   * (8 GB in three minutes in a hostile run, past every quota, which count pages).
   */
  async maintain(checkpoint: Checkpoint): Promise<{ upload?: Promise<void> }> {
    await this.capture();
    const snapshotDue = this.#bytesSinceSnapshot >= this.#snapshotEveryBytes && this.#snapshotting === undefined;
    const wal = walSize(this.#walPath);
    if (!snapshotDue && wal <= this.#checkpointBytes) return {};
    if (this.#queue.pendingBytes > this.#maxSegmentBytes && wal <= this.#maxWalBytes) return {};
    if (this.#copying && wal <= this.#maxWalBytes) return {};
    const seq = this.#queue.seal();
    await this.#queue.flush();
    await this.#checkpoint(checkpoint);
    if (!snapshotDue) return {};
    const time = this.#stamp();
    this.#guard();
    const shipped = this.#bytesSinceSnapshot;
    this.#bytesSinceSnapshot = 0;
    this.#snapshotting = this.#snapshot(snapshotKey(this.#root, this.#queue.generation, seq, time))
      .catch((error: unknown) => {
        // Not taken after all: due again at the next maintain.
        this.#bytesSinceSnapshot += shipped;
        throw error;
      })
      .finally(() => {
        this.#snapshotting = undefined;
      });
    return { upload: this.#snapshotting };
  }

  /**
   * Under the tenant lock, right after a capture (a commit's): when the WAL is past `maxWalBytes`, ships what waits
   * and checkpoints, so a tenant writing faster than its segments upload waits for them at the commit that passed the
   * bound. Left to the next round's `maintain`, the WAL grew by the write rate for as long as that round's flush took
   * (to 1.4 GB beside a 1 GiB database in a hostile run, checkpointed minutes later). Below it, nothing: the size is
   * the capture's.
   */
  async bound(checkpoint: Checkpoint): Promise<void> {
    if (!this.pastWalBound) return;
    this.#queue.seal();
    await this.#queue.flush();
    await this.#checkpoint(checkpoint);
  }

  /**
   * Under the tenant lock, before its connection closes (an idle database): captures and seals what was committed and
   * empties the WAL, so closing changes nothing SQLite has not checkpointed already and the generation goes on from
   * the file, with a new WAL, when the connection opens again. What it captured is shipped first, as in `maintain`.
   */
  async rest(checkpoint: Checkpoint): Promise<void> {
    await this.capture();
    this.#queue.seal();
    await this.#queue.flush();
    // An empty WAL (right after a generation started) has nothing for the file: no wait, under the lock, for the
    // generation's base copy.
    if (walSize(this.#walPath) === 0) return;
    await this.#checkpoint(checkpoint);
  }

  /** Whether the WAL, as the last capture found it, is past `maxWalBytes` (what `bound` checkpoints). */
  get pastWalBound(): boolean {
    return this.#walSeen > this.#maxWalBytes;
  }

  /** Whether a snapshot copy of the file is being taken now. */
  get copying(): boolean {
    return this.#copying !== undefined;
  }

  /** Resolves once no snapshot copy of the file is being taken: before anything that writes the file but this replica's checkpoints. */
  whenCopied(): Promise<void> {
    return this.#copying ?? Promise.resolve();
  }

  /** Copies the file just checkpointed and uploads the copy at `key`; the copy is {@link whenCopied}. */
  #snapshot(key: string): Promise<void> {
    const copy = this.#copy(this.#dbPath);
    const copying: Promise<void> = copy.then(
      () => undefined,
      () => undefined,
    );
    this.#copying = copying;
    void copying.then(() => {
      if (this.#copying === copying) this.#copying = undefined;
    });
    return copy.then((path) => uploadSnapshot(this.#store, key, path, this.#guard));
  }

  async #checkpoint(checkpoint: Checkpoint): Promise<void> {
    // A checkpoint writes into the file, which a snapshot may be copying.
    await this.#copying;
    // Counted before it is asked for: it may run in a shard process while this one reads.
    this.#walNumber++;
    await checkpoint();
    const left = walSize(this.#walPath);
    // A checkpoint that could not truncate (another connection reading) may still let SQLite restart the WAL
    // in place later, overwriting frames this replica cannot tell apart by size: refuse rather than lose commits.
    if (left !== 0) throw new Error(`checkpoint left ${left} bytes in the WAL of ${this.#dbPath}: is another connection open?`);
    this.#wal = undefined;
    this.#walSeen = 0;
  }

  /** Queued frames, read from the WAL they were captured in: refused once that WAL may have been emptied. */
  #readFrames(frames: QueuedFrames, frameBytes: number, into: Buffer): void {
    if (frames.wal !== this.#walNumber) throw new Error(`the WAL of ${this.#dbPath} was checkpointed before its commits were shipped`);
    const bytes = readWal(this.#walPath, frames.offset, frames.frameCount * frameBytes, into);
    const header = this.#wal?.header;
    for (let at = 0; at < frames.frameCount * frameBytes; at += frameBytes) {
      // Salts are those of the WAL the frames were captured in, or SQLite restarted it behind the replica.
      if (!header || at + frameBytes > bytes.byteLength || bytes.readUInt32BE(at + 8) !== header.salt1 || bytes.readUInt32BE(at + 12) !== header.salt2) {
        throw new Error(`the WAL of ${this.#dbPath} changed under commits not yet shipped`);
      }
    }
  }

  #readHeader(size: number): WalPosition | undefined {
    if (size < WAL_HEADER_BYTES) return undefined;
    const header = parseWalHeader(readWal(this.#walPath, 0, WAL_HEADER_BYTES));
    return { header, offset: WAL_HEADER_BYTES, checksum: header.checksum };
  }

  /** Frames were there but none continued our chain: if SQLite restarted the WAL behind us, commits were missed. */
  #checkSameWal(header: WalHeader): void {
    const current = parseWalHeader(readWal(this.#walPath, 0, WAL_HEADER_BYTES));
    if (current.salt1 !== header.salt1 || current.salt2 !== header.salt2) {
      throw new Error(`the WAL of ${this.#dbPath} was restarted behind the replica: start a new generation`);
    }
  }

  /** now(), never going backwards, in whole milliseconds (keys hold integers). */
  #stamp(): number {
    this.#lastStamp = Math.max(this.#lastStamp, Math.floor(this.#now()));
    return this.#lastStamp;
  }
}
