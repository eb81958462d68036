import type { ServerResponse } from 'node:http';

/** The bounds of {@link UnsentAnswers}, in bytes of answers written and not yet taken by their callers. */
export interface UnsentBounds {
  /** What one project's callers may leave unread before its next query is refused. */
  readonly perProject: number;
  /** Past this in all, a project leaving more than an equal share of it unread is refused too. */
  readonly total: number;
}

/** Four of the largest answers a project (16 MiB each, cw-db's bound), eight in all. */
export const DEFAULT_UNSENT_BOUNDS: UnsentBounds = { perProject: 64 * 1024 * 1024, total: 128 * 1024 * 1024 };

/**
 * The query route's answers written to their callers and not yet taken from this process (a response is done once
 * Node has handed its last byte to the connection, or the connection closed), by project. What a caller does not
 * read stays in the API's memory, which every tenant shares, until its send deadline ends the connection: callers
 * that sent queries and read nothing grew a hostile run's API by 1.5 GB in 30 s. A project past its bound, or past
 * an equal share of the total while the total is passed, has its next query refused before it runs (429: nothing
 * ran, retry), so it holds at most its bound plus the answers of the queries it had running.
 */
export class UnsentAnswers {
  readonly #bounds: UnsentBounds;
  readonly #held = new Map<string, number>();
  #total = 0;

  constructor(bounds: UnsentBounds = DEFAULT_UNSENT_BOUNDS) {
    this.#bounds = bounds;
  }

  /** Bytes not yet taken, of `project` or of every project. */
  held(project?: string): number {
    return project === undefined ? this.#total : (this.#held.get(project) ?? 0);
  }

  /** Whether `project` may run another query. */
  admits(project: string): boolean {
    const held = this.held(project);
    if (held >= this.#bounds.perProject) return false;
    return this.#total < this.#bounds.total || held < this.#bounds.total / this.#held.size;
  }

  /** Counts `bytes` of `project`'s answer written to `response` until it is done. */
  hold(project: string, bytes: number, response: ServerResponse): void {
    if (bytes <= 0 || response.writableFinished || response.destroyed) return;
    this.#held.set(project, this.held(project) + bytes);
    this.#total += bytes;
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      const left = this.held(project) - bytes;
      if (left > 0) this.#held.set(project, left);
      else this.#held.delete(project);
      this.#total -= bytes;
    };
    response.once('finish', release);
    response.once('close', release);
  }
}
