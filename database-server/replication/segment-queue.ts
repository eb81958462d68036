// Captured commits waiting for the bucket, and the single uploader that ships them as numbered segments. The queue
// holds where each commit's frames lie in the WAL, not the frames: they are read a segment at a time as it uploads,
// so a transaction of any size costs the process a segment's worth of memory, never its own size.
import { createHash } from 'node:crypto';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { segmentKey } from './bucket-layout.ts';
import { compressSegment, segmentHead } from './segment-codec.ts';
import type { WalCommit } from './wal-scan.ts';
import { FRAME_HEADER_BYTES } from './wal-format.ts';

/** A captured commit, or one part of a commit cut over several segments: `frameCount` frames at `offset` of a WAL. */
export interface QueuedFrames extends WalCommit {
  readonly ts: number;
  /** Which WAL the offset is in (the replica's count of checkpoints): frames are read only from that one. */
  readonly wal: number;
  /** How many parts of the same commit follow, one in each next segment. */
  partsAfter: number;
  /** A part after the first of a commit cut into parts. */
  continued: boolean;
}

/** Reads queued frames from the WAL into `into` (synchronously: nothing may checkpoint between the read and its check). */
export type FrameReader = (frames: QueuedFrames, frameBytes: number, into: Buffer) => void;

/**
 * Buffers a segment is laid out in before it is compressed, kept for the next segment (of any tenant) instead of
 * left to the collector: a big transaction goes up in many segments in a row, and each one's buffer left as
 * garbage until a collection would add up to most of the transaction again.
 */
const spareBuffers: Buffer[] = [];
const MAX_SPARE_BUFFERS = 2;

function segmentBuffer(bytes: number): Buffer {
  const index = spareBuffers.findIndex((b) => b.byteLength >= bytes);
  return index === -1 ? Buffer.allocUnsafeSlow(bytes) : (spareBuffers.splice(index, 1)[0] as Buffer).subarray(0, bytes);
}

function spareBuffer(buffer: Buffer): void {
  if (spareBuffers.length < MAX_SPARE_BUFFERS) spareBuffers.push(Buffer.from(buffer.buffer, buffer.byteOffset, buffer.buffer.byteLength - buffer.byteOffset));
}

/** Commits whose sequence number and key are fixed: a retried upload writes the same object again. */
interface Batch {
  readonly key: string;
  readonly pageSize: number;
  readonly parts: QueuedFrames[];
  readonly bytes: number;
  body?: Buffer;
}

interface Target {
  readonly root: string;
  readonly generation: string;
  /** The generation's base snapshot upload: no segment goes up before it, so a segment never lacks its base. */
  readonly base: Promise<void>;
  nextSeq: number;
}

export class SegmentQueue {
  readonly #store: ObjectStore;
  readonly #maxSegmentBytes: number;
  readonly #guard: () => void;
  readonly #read: FrameReader;
  #target: Target | undefined;
  #open: QueuedFrames[] = [];
  #openBytes = 0;
  #openPageSize = 0;
  #batches: Batch[] = [];
  #draining: Promise<void> | undefined;

  /** `guard` runs before every upload and throws to refuse it (a lease no longer surely held). */
  constructor(store: ObjectStore, maxSegmentBytes: number, read: FrameReader, guard: () => void = () => {}) {
    this.#store = store;
    this.#maxSegmentBytes = maxSegmentBytes;
    this.#read = read;
    this.#guard = guard;
  }

  /** Starts numbering from 0 in a new generation. */
  startGeneration(root: string, generation: string, base: Promise<void>): void {
    this.drop();
    this.#target = { root, generation, base, nextSeq: 0 };
  }

  /** Drops everything queued: the next generation's base snapshot holds it. */
  drop(): void {
    this.#open = [];
    this.#openBytes = 0;
    this.#batches = [];
  }

  push(commits: readonly WalCommit[], ts: number, pageSize: number, wal: number): void {
    const frameBytes = FRAME_HEADER_BYTES + pageSize;
    for (const commit of commits) {
      this.#open.push({ ...commit, ts, wal, partsAfter: 0, continued: false });
      this.#openBytes += commit.frameCount * frameBytes;
    }
    this.#openPageSize = pageSize;
  }

  /** The current generation's id. */
  get generation(): string {
    return this.#requireTarget().generation;
  }

  get pendingBytes(): number {
    return this.#openBytes + this.#batches.reduce((sum, b) => sum + b.bytes, 0);
  }

  /**
   * Gives every queued commit its segment (at most `maxSegmentBytes` of frames each; a bigger commit is cut into
   * parts that fill one segment after another) and answers the next sequence number: a snapshot taken now holds
   * exactly the segments below it.
   */
  seal(): number {
    const target = this.#requireTarget();
    const pageSize = this.#openPageSize;
    const frameBytes = FRAME_HEADER_BYTES + pageSize;
    const maxFrames = Math.max(1, Math.floor(this.#maxSegmentBytes / frameBytes));
    let parts: QueuedFrames[] = [];
    let room = maxFrames;
    const close = () => {
      if (parts.length === 0) return;
      const first = parts[0] as QueuedFrames;
      const last = parts.at(-1) as QueuedFrames;
      const frames = maxFrames - room;
      this.#batches.push({ key: segmentKey(target.root, target.generation, target.nextSeq++, first.ts, last.ts), pageSize, parts, bytes: frames * frameBytes });
      this.#openBytes -= frames * frameBytes;
      parts = [];
      room = maxFrames;
    };
    for (const commit of this.#open) {
      // A commit that does not fit starts a segment of its own: cut into parts, every part but the last is alone in
      // its segment, so a restore that stops before an incomplete commit stops at a segment's start.
      if (commit.frameCount > room) close();
      const pieces: QueuedFrames[] = [];
      for (let done = 0; done < commit.frameCount;) {
        if (room === 0) close();
        const frameCount = Math.min(room, commit.frameCount - done);
        const piece = { ...commit, frameCount, offset: commit.offset + done * frameBytes, continued: done > 0 };
        parts.push(piece);
        pieces.push(piece);
        room -= frameCount;
        done += frameCount;
      }
      pieces.forEach((piece, i) => (piece.partsAfter = pieces.length - 1 - i));
    }
    close();
    this.#open = [];
    return target.nextSeq;
  }

  /**
   * Resolves once everything pushed before the call is in the bucket (or in a new generation's base); concurrent
   * callers share one uploader. Commits pushed meanwhile are not waited for: a flush that waited for an empty queue
   * never ended while its tenant wrote faster than its segments uploaded, and neither did the checkpoint after it.
   */
  async flush(): Promise<void> {
    if (this.#open.length === 0 && this.#batches.length === 0) return;
    const target = this.#requireTarget();
    this.seal();
    const last = this.#batches.at(-1);
    while (last && this.#batches.includes(last)) {
      this.#draining ??= this.#uploadFirst().finally(() => {
        this.#draining = undefined;
      });
      await this.#draining;
    }
    // Dropped for a new generation: what they held is in its base.
    if (this.#target !== target) await this.#requireTarget().base;
  }

  /** Uploads the first sealed segment, after its generation's base. */
  async #uploadFirst(): Promise<void> {
    // A generation started meanwhile brings its own base.
    await this.#requireTarget().base;
    const batch = this.#batches[0];
    if (!batch) return;
    if (!batch.body) {
      // The segment laid out in one buffer, every part read into it in this one turn of the event loop (before
      // any await: see FrameReader).
      const frameBytes = FRAME_HEADER_BYTES + batch.pageSize;
      // Version 1 (what cw-db before parts reads) unless the segment holds a part of a cut commit.
      const head = segmentHead(batch.pageSize, batch.parts, batch.parts.some((p) => p.partsAfter > 0 || p.continued) ? 2 : 1);
      const raw = segmentBuffer(head.byteLength + batch.bytes);
      try {
        head.copy(raw);
        let at = head.byteLength;
        for (const part of batch.parts) {
          this.#read(part, frameBytes, raw.subarray(at, at + part.frameCount * frameBytes));
          at += part.frameCount * frameBytes;
        }
        batch.body = await compressSegment(raw);
      } finally {
        spareBuffer(raw);
      }
    }
    const sha256 = createHash('sha256').update(batch.body).digest('hex');
    this.#guard();
    const result = await this.#store.put(batch.key, batch.body, { sha256 });
    if (result.kind !== 'written') throw new Error(`segment ${batch.key} was not written`);
    // A new generation may have replaced the queue while this upload was in flight.
    if (this.#batches[0] === batch) this.#batches.shift();
  }

  #requireTarget(): Target {
    if (!this.#target) throw new Error('no generation started: call startGeneration first');
    return this.#target;
  }
}
