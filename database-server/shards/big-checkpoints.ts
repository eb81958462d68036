// Checkpoints of large WALs, off the shard's thread. A shard runs its tenants' SQL on one thread, and a
// `wal_checkpoint(TRUNCATE)` copies every page the WAL holds into the file: 7 s for a 1 GiB WAL here, during which
// every other tenant of the shard waited (a hostile tenant's writes grow its WAL to gigabytes while its segments
// upload). A worker thread with a connection of its own does it instead, while the tenant's lock keeps its own
// connection idle; the shard's thread goes on serving the others.
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { KeyedMutex } from '../../src/collections/keyed-mutex.ts';
import { Semaphore } from '../../src/collections/semaphore.ts';
import type { CheckpointJob } from './checkpoint-thread.ts';

const THREAD_ENTRY = new URL('./checkpoint-thread.ts', import.meta.url);

export interface BigCheckpointLimits {
  /** A WAL at least this large is checkpointed on a thread (below it, on the shard's: some 2.5 ms a MiB). */
  readonly minWalBytes: number;
  /** Threads at once in a shard; one project's checkpoints take them one at a time, so it holds one at most. */
  readonly threads: number;
}

/** 16 MiB (about 40 ms on the shard's thread, against some 50 ms to start a thread); two threads a shard. */
export const DEFAULT_BIG_CHECKPOINT_LIMITS: BigCheckpointLimits = { minWalBytes: 16 * 1024 * 1024, threads: 2 };

export class BigCheckpoints {
  readonly #limits: BigCheckpointLimits;
  readonly #byProject = new KeyedMutex();
  readonly #threads: Semaphore;

  constructor(limits: BigCheckpointLimits = DEFAULT_BIG_CHECKPOINT_LIMITS) {
    this.#limits = limits;
    this.#threads = new Semaphore(limits.threads);
  }

  /** Whether the WAL of `databasePath` is large enough to be checkpointed on a thread. */
  isBig(databasePath: string): boolean {
    return (statSync(`${databasePath}-wal`, { throwIfNoEntry: false })?.size ?? 0) >= this.#limits.minWalBytes;
  }

  /** Checkpoints `databasePath` (TRUNCATE) on a thread, in turn with the project's others; the caller holds its lock. */
  run(databasePath: string, project: string): Promise<void> {
    return this.#byProject.run(project, async () => {
      const release = await this.#threads.acquire();
      try {
        await onThread({ databasePath });
      } finally {
        release();
      }
    });
  }
}

function onThread(job: CheckpointJob): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(THREAD_ENTRY, { workerData: job });
    let done = false;
    worker.once('message', () => (done = true));
    worker.once('error', reject);
    worker.once('exit', (code) => (done && code === 0 ? resolve() : reject(new Error(`the checkpoint thread of ${job.databasePath} ended with code ${code}`))));
  });
}
