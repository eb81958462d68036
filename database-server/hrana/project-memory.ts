import { formatBytes } from '../sql/sql-limits.ts';

/** Options of a {@link ProjectMemory}. */
export interface ProjectMemoryOptions {
  /** What one project's requests may hold at once (and what callers not yet authenticated hold together). */
  limitBytes: number;
  /** The project a database belongs to (cw-db's tenant directory); default: the database is its own project. */
  projectOf?: (database: string) => string;
}

/** The error a request refused for its project's memory answers, over HTTP (429) and WebSocket. */
export interface MemoryRefusal {
  message: string;
  code: 'PROJECT_BUSY';
}

// The account of what goes to callers not authenticated yet (a WebSocket's hello_error): no project id is empty.
const ANONYMOUS = '';

/**
 * Bytes a project's requests hold in cw-db's main process, which every project shares: request bodies being
 * read, answers the client has not taken yet, and over WebSocket its requests waiting to run, its stored SQL and
 * its cursors. Past the bound a project's next request is refused (429 `PROJECT_BUSY`), so one project's slow
 * readers, big bodies and parked cursors cost it, not the others. An answer to work already done is charged
 * whatever the bound (losing the answer of a commit would be worse than overshooting): the bound holds the
 * project's next request back instead.
 */
export class ProjectMemory {
  readonly limitBytes: number;
  readonly #projectOf: (database: string) => string;
  readonly #held = new Map<string, number>();

  constructor(options: ProjectMemoryOptions) {
    if (!Number.isInteger(options.limitBytes) || options.limitBytes < 1) throw new RangeError(`limitBytes must be a positive integer, got ${options.limitBytes}`);
    this.limitBytes = options.limitBytes;
    this.#projectOf = options.projectOf ?? ((database) => database);
  }

  /**
   * Charges `bytes` to the project of `database` (`undefined`: a caller not authenticated yet) if it stays within
   * the bound; `false`, charging nothing, if not.
   */
  tryCharge(database: string | undefined, bytes: number): boolean {
    const account = this.#account(database);
    const held = this.#held.get(account) ?? 0;
    if (held + bytes > this.limitBytes) return false;
    this.#held.set(account, held + bytes);
    return true;
  }

  /** Charges `bytes` whatever the bound: the answer of work already done. */
  charge(database: string | undefined, bytes: number): void {
    const account = this.#account(database);
    this.#held.set(account, (this.#held.get(account) ?? 0) + bytes);
  }

  /** Gives back `bytes` charged to the project of `database`. */
  release(database: string | undefined, bytes: number): void {
    const account = this.#account(database);
    const left = (this.#held.get(account) ?? 0) - bytes;
    if (left > 0) this.#held.set(account, left);
    else this.#held.delete(account);
  }

  /** Whether the project of `database` holds more than its bound now: its next request is refused. */
  over(database: string): boolean {
    return this.heldBy(database) > this.limitBytes;
  }

  /** What the project of `database` holds now. */
  heldBy(database: string | undefined): number {
    return this.#held.get(this.#account(database)) ?? 0;
  }

  /** The refusal a request of `database`'s project gets while it holds its bound. */
  refusal(): MemoryRefusal {
    return {
      message: `This project's requests hold ${formatBytes(this.limitBytes)} of the database server's memory (request bodies being sent, answers not yet read, WebSocket cursors and stored SQL); retry once some are done`,
      code: 'PROJECT_BUSY',
    };
  }

  #account(database: string | undefined): string {
    return database === undefined ? ANONYMOUS : this.#projectOf(database);
  }
}
