/** One line an app wrote with `console.*` while serving a request. */
export interface AppLogLine {
  readonly time: string;
  readonly level: 'debug' | 'info' | 'log' | 'warn' | 'error';
  readonly message: string;
}

/** An exception the app did not catch. */
export interface AppLogException {
  readonly time: string;
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
}

/**
 * One invocation of an app, as `wrangler tail` shows it: the request line (never its headers or body,
 * which can hold secrets), the status, workerd's outcome, and what the app logged and threw meanwhile.
 */
export interface AppLogEntry {
  readonly time: string;
  readonly buildId: string;
  /** workerd's verdict: `ok`, `exception`, `exceededCpu`, `exceededMemory`, `canceled`, … */
  readonly outcome: string;
  readonly request?: { readonly method: string; readonly url: string };
  /** The request's `X-Request-Id` as the entry point passed it to the app. */
  readonly requestId?: string;
  /** Absent when the app answered nothing (it threw, or the client went away). */
  readonly status?: number;
  readonly logs: readonly AppLogLine[];
  readonly exceptions: readonly AppLogException[];
}

export type AppLogListener = (entry: AppLogEntry) => void;
/** Told how many of an app's entries were not kept (its tail worker dropped them: more than its share of a batch). */
export type AppLogDropListener = (count: number) => void;

/**
 * Bounds on what one entry keeps, so one chatty request cannot fill the buffer: `entryChars` over all its lines,
 * exceptions and stacks together (past it, lines are dropped and a line of the runtime says how many).
 */
export const LOG_LIMITS = { linesPerEntry: 100, messageChars: 8192, urlChars: 2048, stackChars: 4096, entryChars: 32_768 } as const;

/** What the recent entries may hold, in bytes: per app, per project, and in all (the process every project shares). */
export interface LogBudgets {
  readonly appBytes: number;
  readonly projectBytes: number;
  readonly totalBytes: number;
}

export const DEFAULT_LOG_BUDGETS: LogBudgets = { appBytes: 1024 * 1024, projectBytes: 4 * 1024 * 1024, totalBytes: 64 * 1024 * 1024 };

/** An entry's memory, about: its text as UTF-16 and a fixed share for the objects around it. */
export function entryBytes(entry: AppLogEntry): number {
  let chars = entry.time.length + entry.buildId.length + entry.outcome.length + (entry.request?.url.length ?? 0) + (entry.requestId?.length ?? 0);
  for (const line of entry.logs) chars += line.message.length + line.time.length;
  for (const e of entry.exceptions) chars += e.name.length + e.message.length + (e.stack?.length ?? 0) + e.time.length;
  return 2 * chars + 64 * (4 + entry.logs.length + entry.exceptions.length);
}

interface Recent {
  readonly entries: AppLogEntry[];
  readonly sizes: number[];
  bytes: number;
}

/**
 * The runtime's app logs, in memory: a bounded buffer of recent entries per app (the first screen of
 * `cw logs`) and live listeners. Keyed by `<project>/<app>`, so a listener only ever sees its own app. The buffer
 * keeps at most `recentPerApp` entries and {@link LogBudgets} bytes of an app, of a project and in all, dropping
 * the oldest: past a project's budget its largest app's, past the total the largest project's, so a project
 * logging much loses its own oldest entries, not another's.
 */
export class AppLogs {
  readonly #recent = new Map<string, Recent>();
  readonly #projects = new Map<string, { bytes: number; apps: Set<string> }>();
  readonly #listeners = new Map<string, Set<AppLogListener>>();
  readonly #dropListeners = new Map<string, Set<AppLogDropListener>>();
  readonly #perApp: number;
  readonly #budgets: LogBudgets;
  #total = 0;

  constructor(options: { recentPerApp?: number; budgets?: Partial<LogBudgets> } = {}) {
    this.#perApp = options.recentPerApp ?? 100;
    this.#budgets = { ...DEFAULT_LOG_BUDGETS, ...options.budgets };
  }

  get recentPerApp(): number {
    return this.#perApp;
  }

  /** Bytes the recent entries hold, about ({@link entryBytes}): of a project, or in all. */
  bytes(project?: string): number {
    return project === undefined ? this.#total : (this.#projects.get(project)?.bytes ?? 0);
  }

  add(key: string, entry: AppLogEntry): void {
    const projectName = key.slice(0, key.indexOf('/'));
    let recent = this.#recent.get(key);
    if (!recent) this.#recent.set(key, (recent = { entries: [], sizes: [], bytes: 0 }));
    let project = this.#projects.get(projectName);
    if (!project) this.#projects.set(projectName, (project = { bytes: 0, apps: new Set() }));
    project.apps.add(key);
    const size = entryBytes(entry);
    recent.entries.push(entry);
    recent.sizes.push(size);
    recent.bytes += size;
    project.bytes += size;
    this.#total += size;
    while (recent.entries.length > this.#perApp || recent.bytes > this.#budgets.appBytes) this.#dropOldest(key);
    while (project.bytes > this.#budgets.projectBytes) this.#dropOldestOf(project);
    if (this.#total > this.#budgets.totalBytes) this.#level(this.#budgets.totalBytes * 0.9);
    for (const listener of this.#listeners.get(key) ?? []) listener(entry);
  }

  /** The last `limit` entries of an app, oldest first. */
  recent(key: string, limit = this.#perApp): AppLogEntry[] {
    const recent = this.#recent.get(key)?.entries ?? [];
    return limit <= 0 ? [] : recent.slice(-limit);
  }

  /**
   * Calls `listener` with each new entry of the app, and `dropped` with the count of entries not kept
   * ({@link dropped}); returns the unsubscribe function.
   */
  subscribe(key: string, listener: AppLogListener, dropped?: AppLogDropListener): () => void {
    const off = [listen(this.#listeners, key, listener), dropped ? listen(this.#dropListeners, key, dropped) : () => {}];
    return () => {
      for (const f of off) f();
    };
  }

  /** Tells the app's followers that `count` of its entries were not kept (the tail worker dropped them). */
  dropped(key: string, count: number): void {
    for (const listener of this.#dropListeners.get(key) ?? []) listener(count);
  }

  /** Forgets an app's buffer (it is no longer served); listeners stay, for a redeploy. */
  forget(key: string): void {
    while (this.#recent.get(key)?.entries.length) this.#dropOldest(key);
  }

  #dropOldest(key: string): void {
    const recent = this.#recent.get(key);
    if (!recent) return;
    recent.entries.shift();
    const size = recent.sizes.shift() ?? 0;
    recent.bytes -= size;
    this.#total -= size;
    const projectName = key.slice(0, key.indexOf('/'));
    const project = this.#projects.get(projectName);
    if (project) project.bytes -= size;
    if (recent.entries.length > 0) return;
    this.#recent.delete(key);
    project?.apps.delete(key);
    if (project && project.apps.size === 0) this.#projects.delete(projectName);
  }

  /**
   * Brings the total down to `target` from the largest projects: every project above one level (the highest that
   * frees enough) is cut down to it, its largest app's oldest entries first. One sort of the projects frees a tenth
   * of the budget, rather than a walk over every project per entry dropped.
   */
  #level(target: number): void {
    const sizes = [...this.#projects.entries()].map(([name, p]) => [name, p.bytes] as const).sort((a, b) => b[1] - a[1]);
    const excess = this.#total - target;
    let level = 0;
    let above = 0;
    for (let i = 0; i < sizes.length; i++) {
      above += sizes[i]![1];
      const next = sizes[i + 1]?.[1] ?? 0;
      // Cutting the first i+1 projects down to `next` frees `above - (i+1)·next`; the level frees `excess` exactly.
      if (above - (i + 1) * next >= excess) {
        level = Math.max(next, (above - excess) / (i + 1));
        break;
      }
    }
    for (const [name, bytes] of sizes) {
      if (bytes <= level) break;
      const project = this.#projects.get(name);
      while (project && project.bytes > level && project.apps.size > 0) this.#dropOldestOf(project);
    }
  }

  /** Drops the oldest entry of the project's largest app. */
  #dropOldestOf(project: { readonly apps: Set<string> }): void {
    this.#dropOldest(this.#largest(project.apps, (k) => this.#recent.get(k)?.bytes ?? 0));
  }

  #largest(keys: Iterable<string>, bytes: (key: string) => number): string {
    let best = '';
    let most = -1;
    for (const key of keys) {
      const b = bytes(key);
      if (b > most) [best, most] = [key, b];
    }
    return best;
  }
}

/** Adds `listener` to `key`'s set of `listeners`; returns what takes it out. */
function listen<T>(listeners: Map<string, Set<T>>, key: string, listener: T): () => void {
  let set = listeners.get(key);
  if (!set) listeners.set(key, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0) listeners.delete(key);
  };
}
