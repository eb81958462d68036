import { stat, statfs } from 'node:fs/promises';
import type { GrowthFreeze } from './sql/growth-freeze.ts';
import { formatBytes } from './sql/sql-limits.ts';

/** The disk a replica's databases share, and how much of it one project may hold (docs/databases.md, "Storage"). */
export interface StorageBounds {
  /** What all of one project's databases on this replica may hold together (`CW_DB_PROJECT_STORAGE_QUOTA_MIB`). */
  readonly projectQuotaBytes: number;
  /** Free space kept on the data volume (`CW_DB_DISK_RESERVE_MIB`): below it the projects holding most stop growing. */
  readonly diskReserveBytes: number;
}

/** What is known of the disk and of one project when a request starts. */
export interface StorageFigures {
  readonly projectBytes: number;
  /** The mean of the projects with databases on this replica: below it a project is not one of the heavy ones. */
  readonly meanProjectBytes: number;
  readonly diskFreeBytes: number;
}

/**
 * Whether a project's databases may grow. Each database has its own size quota, but a project may have many
 * databases, and every project's share one volume: so a project's databases together stop growing at the project
 * quota; and when the disk is down to its reserve anyway (quotas overcommit the volume), the projects holding more
 * than the mean stop growing, so the heaviest tenants pay for a full disk, not the small ones, which keep the
 * reserve. Below half the reserve every database stops growing: SQLite must never meet a full disk mid-write.
 */
export function growthFreeze(bounds: StorageBounds, figures: StorageFigures): GrowthFreeze | undefined {
  const { projectBytes, meanProjectBytes, diskFreeBytes } = figures;
  if (projectBytes >= bounds.projectQuotaBytes) {
    return {
      reason: 'project_storage_quota',
      message: `The database cannot grow: the databases of the project (and of the other projects of the user who created it) on this server hold ${formatBytes(projectBytes)}, at its storage quota of ${formatBytes(bounds.projectQuotaBytes)}; delete rows or databases to write more`,
    };
  }
  const heavy = projectBytes > 0 && projectBytes >= meanProjectBytes;
  if (diskFreeBytes < bounds.diskReserveBytes / 2 || (diskFreeBytes < bounds.diskReserveBytes && heavy)) {
    return {
      reason: 'disk_reserve',
      message:
        "The database cannot grow: the server's disk is nearly full and the projects holding the most on it stop growing first; delete rows or databases to write more, or ask the operator for room",
    };
  }
  return undefined;
}

/** Rounds between two that measure every database, not only those requests touched. */
const FULL_ROUND_EVERY = 15;

export interface StorageBudgetOptions {
  readonly bounds: StorageBounds;
  /** The data directory (its volume's free space is what is reserved). */
  readonly dataDir: string;
  /** The path of a tenant's database file; its WAL is beside it. */
  readonly databasePath: (tenant: string) => string;
  readonly projectOf: (tenant: string) => string;
  /** Free bytes on the data volume; default: statfs. */
  readonly freeBytes?: (dir: string) => Promise<number>;
}

/**
 * The storage each project holds on this replica, kept from the sizes of its databases' files: each measured when
 * first seen and again after a request touched it (marked by `touched`, measured at the next `measure` round), so a
 * request costs no `stat`. The gate (`freezeOf`) answers from these figures, at most a round old: a burst can pass
 * a bound by what it writes in that time (a database's own size quota still holds exactly).
 */
export class StorageBudget {
  readonly #options: StorageBudgetOptions;
  readonly #sizes = new Map<string, number>();
  readonly #dirty = new Set<string>();
  #projects = new Map<string, number>();
  #meanProjectBytes = 0;
  #rounds = 0;
  #diskFreeBytes = Number.POSITIVE_INFINITY;

  constructor(options: StorageBudgetOptions) {
    this.#options = options;
  }

  /** Notes that `tenant`'s files may have grown (or shrunk): measured at the next round. */
  touched(tenant: string): void {
    this.#dirty.add(tenant);
  }

  /**
   * One round: measures the tenants a request touched since the last (and those of `tenants` not measured yet;
   * every one each {@link FULL_ROUND_EVERY}th round, for what changes sizes outside requests: checkpoints after
   * shipping, restores), forgets the ones no longer in `tenants`, sums them by project and reads the volume's
   * free space.
   */
  async measure(tenants: Iterable<string>): Promise<void> {
    const present = new Set(tenants);
    for (const tenant of this.#sizes.keys()) if (!present.has(tenant)) this.#sizes.delete(tenant);
    const all = ++this.#rounds % FULL_ROUND_EVERY === 0;
    const due = [...present].filter((tenant) => all || this.#dirty.has(tenant) || !this.#sizes.has(tenant));
    this.#dirty.clear();
    for (const tenant of due) this.#sizes.set(tenant, await this.#sizeOf(tenant));
    const projects = new Map<string, number>();
    for (const [tenant, bytes] of this.#sizes) {
      const project = this.#options.projectOf(tenant);
      projects.set(project, (projects.get(project) ?? 0) + bytes);
    }
    let total = 0;
    for (const bytes of projects.values()) total += bytes;
    this.#projects = projects;
    this.#meanProjectBytes = projects.size === 0 ? 0 : total / projects.size;
    this.#diskFreeBytes = await (this.#options.freeBytes ?? volumeFreeBytes)(this.#options.dataDir);
  }

  /** The gate of a request: why `tenant`'s database may not grow now, or nothing. */
  freezeOf(tenant: string): GrowthFreeze | undefined {
    return growthFreeze(this.#options.bounds, this.#figuresOf(tenant));
  }

  /**
   * What a VACUUM may write now: the volume's free space above half the reserve (its temporary copy and its WAL
   * each take up to the database's size); undefined before the first round.
   */
  vacuumRoom(): number | undefined {
    if (this.#diskFreeBytes === Number.POSITIVE_INFINITY) return undefined;
    return Math.max(0, this.#diskFreeBytes - this.#options.bounds.diskReserveBytes / 2);
  }

  /** The figures `tenant`'s freeze is decided on. */
  #figuresOf(tenant: string): StorageFigures {
    const projectBytes = this.#projects.get(this.#options.projectOf(tenant)) ?? 0;
    return { projectBytes, meanProjectBytes: this.#meanProjectBytes, diskFreeBytes: this.#diskFreeBytes };
  }

  async #sizeOf(tenant: string): Promise<number> {
    return databaseBytes(this.#options.databasePath(tenant));
  }
}

/** What a database takes on the disk: its file and its WAL (0 for what is missing). */
export async function databaseBytes(path: string): Promise<number> {
  return (await fileBytes(path)) + (await fileBytes(`${path}-wal`));
}

async function fileBytes(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** Free bytes an unprivileged writer can use on the volume of `dir`. */
export async function volumeFreeBytes(dir: string): Promise<number> {
  const fs = await statfs(dir);
  return fs.bavail * fs.bsize;
}
