// Captured commits waiting for the bucket, and the single uploader that ships them as numbered segments.
import { createHash } from 'node:crypto';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { segmentKey } from './bucket-layout.ts';
import { encodeSegment, type SegmentCommit } from './segment-codec.ts';

/** Commits whose sequence number and key are fixed: a retried upload writes the same object again. */
interface Batch {
  readonly key: string;
  readonly pageSize: number;
  readonly commits: SegmentCommit[];
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
  #target: Target | undefined;
  #open: SegmentCommit[] = [];
  #openBytes = 0;
  #openPageSize = 0;
  #batches: Batch[] = [];
  #draining: Promise<void> | undefined;

  /** `guard` runs before every upload and throws to refuse it (a lease no longer surely held). */
  constructor(store: ObjectStore, maxSegmentBytes: number, guard: () => void = () => {}) {
    this.#store = store;
    this.#maxSegmentBytes = maxSegmentBytes;
    this.#guard = guard;
  }

  /** Starts numbering from 0 in a new generation. What was queued is dropped: the new base snapshot holds it. */
  startGeneration(root: string, generation: string, base: Promise<void>): void {
    this.#target = { root, generation, base, nextSeq: 0 };
    this.#open = [];
    this.#openBytes = 0;
    this.#batches = [];
  }

  push(commits: readonly SegmentCommit[], pageSize: number): void {
    this.#open.push(...commits);
    this.#openPageSize = pageSize;
    for (const commit of commits) this.#openBytes += commit.frames.byteLength;
  }

  /** The current generation's id. */
  get generation(): string {
    return this.#requireTarget().generation;
  }

  get pendingBytes(): number {
    return this.#openBytes + this.#batches.reduce((sum, b) => sum + b.bytes, 0);
  }

  /**
   * Gives every queued commit its segment (at most `maxSegmentBytes` each, a larger commit alone) and answers the
   * next sequence number: a snapshot taken now holds exactly the segments below it.
   */
  seal(): number {
    const target = this.#requireTarget();
    while (this.#open.length > 0) {
      const commits: SegmentCommit[] = [];
      let bytes = 0;
      while (this.#open.length > 0 && (commits.length === 0 || bytes + (this.#open[0]?.frames.byteLength ?? 0) <= this.#maxSegmentBytes)) {
        const commit = this.#open.shift() as SegmentCommit;
        commits.push(commit);
        bytes += commit.frames.byteLength;
      }
      const first = commits[0] as SegmentCommit;
      const last = commits.at(-1) as SegmentCommit;
      const key = segmentKey(target.root, target.generation, target.nextSeq++, first.ts, last.ts);
      this.#batches.push({ key, pageSize: this.#openPageSize, commits, bytes });
      this.#openBytes -= bytes;
    }
    return target.nextSeq;
  }

  /** Resolves once everything pushed before the call is in the bucket; concurrent callers share one uploader. */
  async flush(): Promise<void> {
    while (this.#open.length > 0 || this.#batches.length > 0) {
      this.#draining ??= this.#drain().finally(() => {
        this.#draining = undefined;
      });
      await this.#draining;
    }
  }

  async #drain(): Promise<void> {
    for (;;) {
      // Every round: a generation started meanwhile brings its own base.
      await this.#requireTarget().base;
      this.seal();
      const batch = this.#batches[0];
      if (!batch) return;
      batch.body ??= await encodeSegment({ pageSize: batch.pageSize, commits: batch.commits });
      const sha256 = createHash('sha256').update(batch.body).digest('hex');
      this.#guard();
      const result = await this.#store.put(batch.key, batch.body, { sha256 });
      if (result.kind !== 'written') throw new Error(`segment ${batch.key} was not written`);
      // A new generation may have replaced the queue while this upload was in flight.
      if (this.#batches[0] === batch) this.#batches.shift();
    }
  }

  #requireTarget(): Target {
    if (!this.#target) throw new Error('no generation started: call startGeneration first');
    return this.#target;
  }
}
