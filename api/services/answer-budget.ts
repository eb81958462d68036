/** The bounds of an {@link AnswerBudget}, in bytes of cw-db's answers. */
export interface AnswerBounds {
  /** What one project's answers may hold at once: at least the largest answer read. */
  readonly perProject: number;
  /** What every project's answers may hold at once. */
  readonly total: number;
  /** An answer this small is always let in (counted all the same): a project's small reads never wait for others' big ones. */
  readonly small: number;
}

/**
 * The query route's defaults: a project holds at most two of cw-db's largest answers (16 MiB), all projects four.
 * Reading, parsing and answering again is the process's one thread's work, so more at once adds memory, not
 * throughput (`make bench-query-answers`: 128 MiB in all peaked 40 % above 64 MiB in the same time).
 */
export const DEFAULT_ANSWER_BOUNDS: AnswerBounds = { perProject: 32 * 1024 * 1024, total: 64 * 1024 * 1024, small: 64 * 1024 };

/** How long an answer may wait before the others make room for it (half the query route's 30 s wait for room). */
export const ANSWER_SHELTER_MS = 15_000;

interface Waiter {
  readonly project: string;
  readonly bytes: number;
  readonly since: number;
  readonly grant: () => void;
}

/**
 * The API process's memory for cw-db's answers to the query route, which it reads whole, parses and answers again:
 * without a bound, one project's many concurrent large SELECTs grew a bare API process from 69 to 367 MiB, and
 * every tenant shares that process. An answer's bytes (its Content-Length, known before its body is read) are
 * held from when it is read until the caller's answer is serialized (not until the caller has read it, or a client
 * reading nothing would hold the room); one that does not fit waits, its project's turn kept in order, while
 * answers of projects within their bound that fit go ahead — until the oldest waiter has waited `shelterMs`: then
 * only answers that leave room for it go ahead, so other projects' steady medium answers cannot starve a large one.
 */
export class AnswerBudget {
  readonly #bounds: AnswerBounds;
  readonly #shelterMs: number;
  readonly #now: () => number;
  readonly #held = new Map<string, number>();
  #total = 0;
  readonly #waiters: Waiter[] = [];

  constructor(bounds: AnswerBounds = DEFAULT_ANSWER_BOUNDS, shelterMs = ANSWER_SHELTER_MS, now: () => number = () => performance.now()) {
    this.#bounds = bounds;
    this.#shelterMs = shelterMs;
    this.#now = now;
  }

  /** Bytes held now, by every project. */
  get total(): number {
    return this.#total;
  }

  /**
   * Resolves once `project` holds `bytes` more, with the function that gives them back; rejects with `signal`'s
   * reason if it aborts first. An answer larger than a project may hold never fits: the caller bounds answers.
   */
  reserve(project: string, bytes: number, signal?: AbortSignal): Promise<() => void> {
    const release = once(() => this.#release(project, bytes));
    // Behind its own project's waiters, but for a small one.
    if (bytes <= this.#bounds.small || (this.#fitsBeside(this.#sheltered(), project, bytes) && !this.#waiters.some((w) => w.project === project))) {
      this.#take(project, bytes);
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        project,
        bytes,
        since: this.#now(),
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#take(project, bytes);
          resolve(release);
        },
      };
      const onAbort = () => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(signal?.reason);
        // The room it was sheltered for, or its place ahead of its project's others, may let those after it in.
        this.#grant();
      };
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #fits(project: string, bytes: number): boolean {
    if (bytes <= this.#bounds.small) return true;
    return (this.#held.get(project) ?? 0) + bytes <= this.#bounds.perProject && this.#total + bytes <= this.#bounds.total;
  }

  /**
   * The oldest waiter held back only by the total, once it has waited its shelter: the room it needs is kept for it.
   * One its own project's answers hold back waits for them alone (sheltering it would cap every other project).
   */
  #sheltered(): Waiter | undefined {
    const seen = new Set<string>();
    for (const waiter of this.#waiters) {
      if (this.#now() - waiter.since < this.#shelterMs) return undefined;
      if (seen.has(waiter.project)) continue;
      seen.add(waiter.project);
      if ((this.#held.get(waiter.project) ?? 0) + waiter.bytes <= this.#bounds.perProject) return waiter;
    }
    return undefined;
  }

  /** Whether `bytes` of `project` fit and still leave `sheltered` (another waiter) room in all. */
  #fitsBeside(sheltered: Waiter | undefined, project: string, bytes: number): boolean {
    if (!this.#fits(project, bytes)) return false;
    return !sheltered || bytes <= this.#bounds.small || this.#total + bytes + sheltered.bytes <= this.#bounds.total;
  }

  #take(project: string, bytes: number): void {
    this.#held.set(project, (this.#held.get(project) ?? 0) + bytes);
    this.#total += bytes;
  }

  #release(project: string, bytes: number): void {
    const left = (this.#held.get(project) ?? 0) - bytes;
    if (left > 0) this.#held.set(project, left);
    else this.#held.delete(project);
    this.#total -= bytes;
    this.#grant();
  }

  /**
   * Lets waiters in, in order, but a project whose first waiter does not fit holds back only its own later ones,
   * unless one has waited its shelter.
   */
  #grant(): void {
    const blocked = new Set<string>();
    // Changes only when a waiter is let in.
    let sheltered = this.#sheltered();
    for (let i = 0; i < this.#waiters.length;) {
      const waiter = this.#waiters[i]!;
      if (blocked.has(waiter.project) || !this.#fitsBeside(sheltered === waiter ? undefined : sheltered, waiter.project, waiter.bytes)) {
        blocked.add(waiter.project);
        i++;
        continue;
      }
      this.#waiters.splice(i, 1);
      waiter.grant();
      sheltered = this.#sheltered();
    }
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

/** The answers one response reads: given back together when it is serialized or ends (at once for one granted after). */
export class ResponseAnswers {
  readonly #budget: AnswerBudget;
  readonly #project: string;
  readonly #releases: Array<() => void> = [];
  #ended = false;

  constructor(budget: AnswerBudget, project: string) {
    this.#budget = budget;
    this.#project = project;
  }

  async reserve(bytes: number, signal?: AbortSignal): Promise<void> {
    const release = await this.#budget.reserve(this.#project, bytes, signal);
    if (this.#ended) release();
    else this.#releases.push(release);
  }

  end(): void {
    this.#ended = true;
    for (const release of this.#releases.splice(0)) release();
  }
}
