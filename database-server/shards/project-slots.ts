import { RunNotStartedError } from './engine-port.ts';

/**
 * A shard's slots for running requests, shared out between projects: while requests of other projects wait, a
 * project holds at most half of them, and a freed slot goes to the longest-waiting request of a project under that
 * share. A project may take more when nobody else waits (a free slot never idles). A project that holds no slot
 * and finds them all taken is lent one beyond them at once, up to half as many again in all: so one project's
 * many databases, having taken every slot while the shard was quiet, do not make another project's request wait for
 * one of theirs to end (CW_DB_MAX_REQUEST_TIME); it takes turns with them a statement at a time (fair-turns.ts).
 * The lent slots are what bounds the shard's running requests (and its answers' memory): 1.5 × its slots.
 */
export class ProjectSlots {
  readonly #share: number;
  /** Slots free now; below zero while slots are lent beyond the shard's count. */
  #free: number;
  readonly #held = new Map<string, number>();
  readonly #waiting: { project: string; grant: () => void }[] = [];

  constructor(slots: number) {
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`slots must be a positive integer, got ${slots}`);
    this.#free = slots;
    this.#share = Math.max(1, Math.floor(slots / 2));
  }

  /**
   * Resolves with the release function once a slot is held for `project`; call it exactly once. Rejects with
   * `RunNotStartedError`, holding nothing, when `cancel` is aborted before a slot is granted (a client gone).
   */
  async acquire(project: string, cancel?: AbortSignal): Promise<() => void> {
    if (cancel?.aborted) throw new RunNotStartedError();
    if (this.#free > 0 && (this.#underShare(project) || this.#waiting.length === 0)) this.#take(project);
    else if (this.#free <= 0 && this.heldBy(project) === 0 && -this.#free < this.#share) this.#take(project);
    else await this.#wait(project, cancel);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#release(project);
    };
  }

  #wait(project: string, cancel: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        project,
        grant: () => {
          cancel?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(waiter);
        if (at === -1) return; // granted already
        this.#waiting.splice(at, 1);
        reject(new RunNotStartedError());
      };
      cancel?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** Requests holding a slot now. */
  get running(): number {
    let running = 0;
    for (const held of this.#held.values()) running += held;
    return running;
  }

  /** Requests waiting for a slot now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Slots `project` holds now. */
  heldBy(project: string): number {
    return this.#held.get(project) ?? 0;
  }

  #underShare(project: string): boolean {
    return this.heldBy(project) < this.#share;
  }

  #take(project: string): void {
    this.#free -= 1;
    this.#held.set(project, this.heldBy(project) + 1);
  }

  #release(project: string): void {
    const held = this.heldBy(project) - 1;
    if (held === 0) this.#held.delete(project);
    else this.#held.set(project, held);
    this.#free += 1;
    let next: number;
    // The release gave back a lent slot, and the shard is still full: it may be lent again, to a project holding none.
    if (this.#free <= 0) next = this.#waiting.findIndex((w) => this.heldBy(w.project) === 0 && -this.#free < this.#share);
    else {
      // The longest-waiting request of a project under its share, else (all waiting projects are over it) the longest-waiting.
      next = this.#waiting.findIndex((w) => this.#underShare(w.project));
      if (next === -1 && this.#waiting.length > 0) next = 0;
    }
    if (next === -1) return;
    const [waiter] = this.#waiting.splice(next, 1);
    this.#take(waiter!.project);
    waiter!.grant();
  }
}
