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

/** Bounds on what one entry keeps, so one chatty request cannot fill the buffer. */
export const LOG_LIMITS = { linesPerEntry: 100, messageChars: 8192, urlChars: 2048, stackChars: 4096 } as const;

/**
 * The runtime's app logs, in memory: a bounded buffer of recent entries per app (the first screen of
 * `cw logs`) and live listeners. Keyed by `<project>/<app>`, so a listener only ever sees its own app.
 */
export class AppLogs {
  readonly #recent = new Map<string, AppLogEntry[]>();
  readonly #listeners = new Map<string, Set<AppLogListener>>();
  readonly #perApp: number;

  constructor(options: { recentPerApp?: number } = {}) {
    this.#perApp = options.recentPerApp ?? 100;
  }

  get recentPerApp(): number {
    return this.#perApp;
  }

  add(key: string, entry: AppLogEntry): void {
    let recent = this.#recent.get(key);
    if (!recent) this.#recent.set(key, (recent = []));
    recent.push(entry);
    if (recent.length > this.#perApp) recent.shift();
    for (const listener of this.#listeners.get(key) ?? []) listener(entry);
  }

  /** The last `limit` entries of an app, oldest first. */
  recent(key: string, limit = this.#perApp): AppLogEntry[] {
    const recent = this.#recent.get(key) ?? [];
    return limit <= 0 ? [] : recent.slice(-limit);
  }

  /** Calls `listener` with each new entry of the app; returns the unsubscribe function. */
  subscribe(key: string, listener: AppLogListener): () => void {
    let set = this.#listeners.get(key);
    if (!set) this.#listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(key);
    };
  }

  /** Forgets an app's buffer (it is no longer served); listeners stay, for a redeploy. */
  forget(key: string): void {
    this.#recent.delete(key);
  }
}
