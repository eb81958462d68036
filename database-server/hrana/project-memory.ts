import { formatBytes } from '../sql/sql-limits.ts';

/** Options of a {@link ProjectMemory}. */
export interface ProjectMemoryOptions {
  /** What one project's requests may hold at once (and what callers not yet authenticated hold together). */
  limitBytes: number;
  /**
   * What all projects' requests may hold together (default: no bound past the projects' own). Past it, a project
   * holding more than an equal share of it (the bound over the projects holding anything) has its next request
   * refused: many projects, each within its own bound, cannot together fill the process, and the ones holding the
   * most are held back first while a project holding little still gets in.
   */
  totalLimitBytes?: number;
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
  readonly totalLimitBytes: number;
  readonly #projectOf: (database: string) => string;
  readonly #held = new Map<string, number>();
  /**
   * What each database holds, and in which project's account: a database's project may change while it holds
   * bytes (the platform's operator sends its account once the Projects are listed), and they must be given back
   * where they were charged, so its bytes move with it to the new project at its next charge.
   */
  readonly #byDatabase = new Map<string, { project: string; bytes: number }>();
  #total = 0;

  constructor(options: ProjectMemoryOptions) {
    if (!Number.isInteger(options.limitBytes) || options.limitBytes < 1) throw new RangeError(`limitBytes must be a positive integer, got ${options.limitBytes}`);
    this.limitBytes = options.limitBytes;
    this.totalLimitBytes = options.totalLimitBytes ?? Number.POSITIVE_INFINITY;
    this.#projectOf = options.projectOf ?? ((database) => database);
  }

  /** What all projects hold now. */
  get totalHeld(): number {
    return this.#total;
  }

  /**
   * Charges `bytes` to the project of `database` (`undefined`: a caller not authenticated yet) if it stays within
   * the bound; `false`, charging nothing, if not.
   */
  tryCharge(database: string | undefined, bytes: number): boolean {
    const account = this.#moved(database);
    const held = this.#held.get(account) ?? 0;
    if (held + bytes > this.limitBytes) return false;
    if (this.#total + bytes > this.totalLimitBytes && held + bytes > this.#share(held === 0)) return false;
    this.#held.set(account, held + bytes);
    this.#total += bytes;
    this.#count(database, account, bytes);
    return true;
  }

  /** Charges `bytes` whatever the bound: the answer of work already done. */
  charge(database: string | undefined, bytes: number): void {
    const account = this.#moved(database);
    this.#held.set(account, (this.#held.get(account) ?? 0) + bytes);
    this.#total += bytes;
    this.#count(database, account, bytes);
  }

  /** Gives back `bytes` charged to the project of `database`. */
  release(database: string | undefined, bytes: number): void {
    const charged = database === undefined ? undefined : this.#byDatabase.get(database);
    const account = charged?.project ?? this.#account(database);
    if (charged) {
      charged.bytes -= bytes;
      if (charged.bytes <= 0) this.#byDatabase.delete(database!);
    }
    const held = this.#held.get(account) ?? 0;
    const left = held - bytes;
    this.#total -= Math.min(held, bytes);
    if (left > 0) this.#held.set(account, left);
    else this.#held.delete(account);
  }

  /** Whether the project of `database` holds more than its bound now, or more than its share while all hold more than theirs: its next request is refused. */
  over(database: string): boolean {
    const held = this.heldBy(database);
    return held > this.limitBytes || (this.#total > this.totalLimitBytes && held > this.#share(held === 0));
  }

  /** An equal share of the total bound among the projects holding anything (one more when the asking one holds nothing yet). */
  #share(newcomer: boolean): number {
    return this.totalLimitBytes / Math.max(1, this.#held.size + (newcomer ? 1 : 0));
  }

  /** What the project of `database` holds now. */
  heldBy(database: string | undefined): number {
    return this.#held.get(this.#account(database)) ?? 0;
  }

  /** The refusal a request gets while its project holds its bound, or its share while all projects' requests hold theirs. */
  refusal(): MemoryRefusal {
    const share = Number.isFinite(this.totalLimitBytes) ? `, or while all projects' requests hold ${formatBytes(this.totalLimitBytes)}, more than an equal share of that` : '';
    return {
      message: `This project's requests hold ${formatBytes(this.limitBytes)} of the database server's memory${share} (request bodies being sent, answers not yet read, WebSocket cursors and stored SQL); retry once some are done`,
      code: 'PROJECT_BUSY',
    };
  }

  #account(database: string | undefined): string {
    return database === undefined ? ANONYMOUS : this.#projectOf(database);
  }

  /** The project of `database` now, its bytes held moved there from the project they were charged to if that changed. */
  #moved(database: string | undefined): string {
    const account = this.#account(database);
    const charged = database === undefined ? undefined : this.#byDatabase.get(database);
    if (charged && charged.project !== account) {
      const before = this.#held.get(charged.project) ?? 0;
      if (before - charged.bytes > 0) this.#held.set(charged.project, before - charged.bytes);
      else this.#held.delete(charged.project);
      this.#held.set(account, (this.#held.get(account) ?? 0) + charged.bytes);
      charged.project = account;
    }
    return account;
  }

  #count(database: string | undefined, project: string, bytes: number): void {
    if (database === undefined) return;
    const charged = this.#byDatabase.get(database);
    if (charged) charged.bytes += bytes;
    else this.#byDatabase.set(database, { project, bytes });
  }
}
