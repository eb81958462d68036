// Resident memory of the servers a test runs, read from /proc as the kernel counts it: what a pod's memory
// limit is measured against.
import { readdirSync, readFileSync } from 'node:fs';

/** The process's resident set in bytes (VmRSS), or 0 once it has gone. */
export function residentBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * `pid` and every process below it (cw-runtime's workerd processes, say), as far as they can be read (a process
 * may exit meanwhile). Each thread lists the children it forked, so every thread of a process is asked.
 */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    const parent = tree[i]!;
    for (const task of readOr(() => readdirSync(`/proc/${parent}/task`), [])) {
      const children = readOr(() => readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8'), '');
      tree.push(...children.split(/\s+/).filter(Boolean).map(Number));
    }
  }
  return tree;
}

/** What `read` answers, or `otherwise` when it throws (a file of /proc gone with its process). */
export function readOr<T>(read: () => T, otherwise: T): T {
  try {
    return read();
  } catch {
    return otherwise;
  }
}

/** The resident bytes of `pid` and the processes below it, summed. */
export function treeResidentBytes(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + residentBytes(p), 0);
}

/**
 * Samples a process's (or process tree's) resident memory every few milliseconds until stopped, keeping the
 * peak: a transient buffer of a few hundred megabytes shows although it is freed before the test looks.
 */
export class MemorySampler {
  readonly baseline: number;
  #peak: number;
  readonly #timer: NodeJS.Timeout;
  readonly #read: () => number;

  constructor(read: () => number, everyMs = 20, baseline = read()) {
    this.#read = read;
    this.baseline = baseline;
    this.#peak = this.baseline;
    this.#timer = setInterval(() => (this.#peak = Math.max(this.#peak, this.#read())), everyMs);
  }

  /**
   * A sampler whose baseline is the highest reading over `restingMs` first: a process at rest moves by tens of
   * megabytes as V8 collects and grows its heap again, and one reading taken in a dip counted that regrowth as
   * the work's (a loaded CI host saw cw-api "grow" 131 MiB from a baseline 60 MiB under its usual one).
   */
  static async fromResting(read: () => number, restingMs = 1000, everyMs = 20): Promise<MemorySampler> {
    let resting = read();
    for (const end = performance.now() + restingMs; performance.now() < end;) {
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      resting = Math.max(resting, read());
    }
    return new MemorySampler(read, everyMs, resting);
  }

  /** The highest reading so far. */
  get peak(): number {
    return Math.max(this.#peak, this.#read());
  }

  /** How far the peak rose above the first reading. */
  get growth(): number {
    return this.peak - this.baseline;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
