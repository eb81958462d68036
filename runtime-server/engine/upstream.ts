import { Pool } from 'undici';
import type { StallEvidence } from './blame.ts';
import type { Refusal } from './entry-proxy.ts';

/** Kept-alive connections to one workerd socket: undici's pool, which frames HTTP/1.1 for the entry point. */
export interface UpstreamSocket {
  readonly socketPath: string;
  readonly dispatcher: Pool;
}

/**
 * Ends a request's flight ({@link UpstreamPool.enter}): `lost` when the workerd broke off its answer. `answered()` notes
 * that workerd began answering it.
 */
export type Leave = ((lost?: boolean) => void) & { readonly answered: () => void };

/** `flight` began its answer, or ended: each watcher waiting for it is told once the last of its requests has. */
function settle(flight: Flight, answered: boolean): void {
  const watchers = flight.watchers!;
  flight.watchers = undefined;
  for (const watcher of watchers) {
    if (!watcher.pending.delete(flight)) continue;
    if (!answered) watcher.unanswered = true;
    if (watcher.pending.size === 0) watcher.listener(!watcher.unanswered);
  }
}

/** Dropped requests kept as evidence (a workerd that died dropped all it had). */
const MAX_LOST = 1000;

/** One request the entry point sent to a workerd: whose, which, and since when. */
interface Flight {
  readonly app: string;
  readonly method: string;
  readonly url: string;
  readonly sentAt: number;
  /** workerd began answering it (a response head, a 101): it no longer waits for the thread to run its app. */
  answered: boolean;
  /**
   * Ends the request early (`cut`): answers its client the refusal when nothing was answered yet (true), else breaks
   * its answer off (false, as when it had ended already: workerd's answer was counted as the app's). Dropped when the
   * request ends: it holds the whole exchange, which a dead flight still referenced from the old generation would
   * carry through every young collection until the next full one (4× the promoted bytes a request, measured).
   */
  cut: ((refusal: Refusal) => boolean) | undefined;
  /** Waiting for its answer to begin ({@link UpstreamPool.onAnswered}). */
  watchers?: Set<AnswerWatcher>;
}

/** Waits for a set of requests to have begun their answers, or to have ended without one. */
interface AnswerWatcher {
  readonly pending: Set<Flight>;
  /** One of them ended with no answer begun (its client left, it was cut short). */
  unanswered: boolean;
  readonly listener: (allAnswered: boolean) => void;
}

/**
 * The connections to one workerd process and the requests in flight on them. A blue/green switch
 * leaves the old pool serving what it already accepted; the engine waits for `idle()` before stopping
 * that workerd, so no request is dropped. What it records of each request (app, when sent, when the
 * workerd last answered anything) is the watchdog's evidence when that workerd gets stuck (`blame.ts`).
 */
export class UpstreamPool {
  readonly #sockets = new Map<string, UpstreamSocket>();
  /** The entry point logged that this workerd cannot be reached. */
  reportedUnreachable = false;
  readonly #open = new Set<Flight>();
  /** Requests this workerd dropped (it died under them): still evidence of what it was running. */
  readonly #lost: Flight[] = [];
  /** App key → when its last request here finished. */
  readonly #ended = new Map<string, number>();
  /**
   * Per project: its requests here workerd has not begun to answer, since when one has been (while any is), and the
   * time it had one before that: how long the project waited for the thread (the sustained bound's evidence).
   */
  readonly #waitingByProject = new Map<string, { count: number; since: number; ms: number }>();
  /** Per project (probation's turns ask per request): requests in flight, and when the last one finished. */
  readonly #openByProject = new Map<string, number>();
  readonly #endedByProject = new Map<string, number>();
  /** The last moment this workerd showed it runs ({@link output}). */
  #lastOutput = Date.now();
  #idleWaiters: Array<() => void> = [];
  /** Project → called once its last request here ends (a request waiting for its turn listens). */
  readonly #projectIdle = new Map<string, Set<() => void>>();
  /** Called at the first sign of life after their moment (a request waiting for a turn to pass listens). */
  readonly #outputWaiters = new Set<{ readonly after: number; readonly listener: () => void }>();
  /** The shard has judged this workerd's end; until then, requests it dropped wait to be decided on (`afterJudged`). */
  #judged = false;
  readonly #judgedWaiters = new Set<() => void>();
  /** Called at every response head workerd sends while set (a cold start's measure, `load-stretch.ts`). */
  readonly #headListeners = new Set<() => void>();

  get inFlight(): number {
    return this.#open.size;
  }

  get lastOutput(): number {
    return this.#lastOutput;
  }

  /** The kept-alive connections to one of this workerd's sockets. */
  socket(socketPath: string): UpstreamSocket {
    let socket = this.#sockets.get(socketPath);
    if (!socket) {
      // The origin only names the scheme: every request carries the client's own Host.
      socket = { socketPath, dispatcher: new Pool('http://workerd', { socketPath, connections: null }) };
      this.#sockets.set(socketPath, socket);
    }
    return socket;
  }

  /**
   * Counts a request of `app` in flight; the returned function ends it, once however often it is called:
   * `lost` when the workerd broke off its answer (it died), so it still counts as running when it died.
   */
  enter(app = '', method = '', url = '', cut?: (refusal: Refusal) => boolean): Leave {
    const flight: Flight = { app, method, url, sentAt: Date.now(), answered: false, cut };
    const project = app.slice(0, Math.max(0, app.indexOf('/')));
    this.#open.add(flight);
    this.#openByProject.set(project, (this.#openByProject.get(project) ?? 0) + 1);
    if (app) this.#waits(project, 1);
    let left = false;
    const leave = (lost = false) => {
      if (left) return;
      left = true;
      this.#open.delete(flight);
      flight.cut = undefined;
      if (app && !flight.answered) this.#waits(project, -1);
      const open = (this.#openByProject.get(project) ?? 1) - 1;
      if (open > 0) this.#openByProject.set(project, open);
      else this.#openByProject.delete(project);
      if (!lost && app) this.#endedByProject.set(project, Date.now());
      if (lost) {
        this.#lost.push(flight);
        if (this.#lost.length > MAX_LOST) this.#lost.shift();
      } else if (app) this.#ended.set(app, Date.now());
      if (this.#open.size === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
      if (flight.watchers) settle(flight, false);
      if (open <= 0 && this.#projectIdle.size > 0) {
        const listeners = this.#projectIdle.get(project);
        this.#projectIdle.delete(project);
        if (listeners) for (const listener of listeners) listener();
      }
    };
    const answered = () => {
      if (flight.answered) return;
      flight.answered = true;
      if (app && !left) this.#waits(project, -1);
      for (const listener of this.#headListeners) listener();
      if (flight.watchers) settle(flight, true);
    };
    return Object.assign(leave, { answered });
  }

  /** One more (1) or one fewer (-1) of `project`'s requests waits for workerd to begin its answer. */
  #waits(project: string, delta: 1 | -1): void {
    const now = Date.now();
    let waiting = this.#waitingByProject.get(project);
    if (!waiting) this.#waitingByProject.set(project, (waiting = { count: 0, since: now, ms: 0 }));
    if (delta > 0 && waiting.count === 0) waiting.since = now;
    waiting.count += delta;
    if (delta < 0 && waiting.count === 0) waiting.ms += now - waiting.since;
  }

  /**
   * Project → how long, in all, it has had a request here that workerd had not begun to answer (ms, up to now):
   * between two readings, how long it waited for the thread. One entry for each project that ever sent a request here
   * (a workerd generation's).
   */
  waitedMs(now = Date.now()): Map<string, number> {
    const waited = new Map<string, number>();
    for (const [project, { count, since, ms }] of this.#waitingByProject) waited.set(project, ms + (count > 0 ? now - since : 0));
    return waited;
  }

  /**
   * Calls `listener` once every request of `app` in flight here now that waits for workerd to begin its answer has
   * begun it (`true`), or ended, one of them or more without (`false`); at once (`true`) if none waits. Answers what
   * unsubscribes it.
   */
  onAnswered(app: string, listener: (allAnswered: boolean) => void): () => void {
    const watcher: AnswerWatcher = { pending: new Set(), unanswered: false, listener };
    for (const flight of this.#open) if (flight.app === app && !flight.answered) watcher.pending.add(flight);
    if (watcher.pending.size === 0) {
      queueMicrotask(() => listener(true));
      return () => {};
    }
    for (const flight of watcher.pending) (flight.watchers ??= new Set()).add(watcher);
    return () => {
      for (const flight of watcher.pending) flight.watchers?.delete(watcher);
      watcher.pending.clear();
    };
  }

  /** Calls `listener` at every response head (or 101) workerd sends here until unsubscribed (what it returns). */
  onHead(listener: () => void): () => void {
    this.#headListeners.add(listener);
    return () => this.#headListeners.delete(listener);
  }

  /** Calls `listener` once no request of `project` is in flight here (at once if none is); returns what unsubscribes it. */
  onProjectIdle(project: string, listener: () => void): () => void {
    if (!this.#openByProject.has(project)) {
      queueMicrotask(listener);
      return () => {};
    }
    let listeners = this.#projectIdle.get(project);
    if (!listeners) this.#projectIdle.set(project, (listeners = new Set()));
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** Whether a request of `project` is in flight here. */
  hasInFlight(project: string): boolean {
    return this.#openByProject.has(project);
  }

  /** When the last request of `project` here finished, if one did. */
  endedAt(project: string): number | undefined {
    return this.#endedByProject.get(project);
  }

  /**
   * Ends the requests in flight here of `owner` (a project's apps, or one app by its key) sent before `sentBefore` that
   * can be ended early; the apps of those answered the refusal. Ending one aborts it towards workerd, which cancels
   * its code at its next `await` (what it computes until then it computes).
   */
  cut(owner: string, refusal: Refusal, sentBefore = Infinity): string[] {
    const prefix = `${owner}/`;
    const flights = [...this.#open].filter((f) => f.cut && f.sentAt < sentBefore && (f.app === owner || f.app.startsWith(prefix)));
    return flights.filter((flight) => flight.cut!(refusal)).map((flight) => flight.app);
  }

  /** App key → its requests in flight here; `waiting`: only those workerd has not begun to answer (a WebSocket or a stream open for long after its answer began waits for nothing). */
  inFlightByApp(waiting = false): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { app, answered } of this.#open) if (app && !(waiting && answered)) counts.set(app, (counts.get(app) ?? 0) + 1);
    return counts;
  }

  /**
   * The shard has judged how this workerd ended: a stop's verdict is given (before the runtime kills it), or it exited
   * and its end was read (one that passed its heap bound ends itself, and its requests fail before that).
   */
  judged(): void {
    this.#judged = true;
    for (const resolve of this.#judgedWaiters) resolve();
    this.#judgedWaiters.clear();
  }

  /** Resolves once {@link judged}, or after `ms` (a workerd that dropped a connection but lives on is never judged). */
  afterJudged(ms: number): Promise<void> {
    if (this.#judged) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#judgedWaiters.delete(done);
        resolve();
      }, ms);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.#judgedWaiters.add(done);
    });
  }

  /**
   * The workerd answered something its thread had to be free for (a response head, body bytes read as it wrote them, a
   * health check): it is not stuck. Bytes of an answer held back for its client are not such (`entry-proxy.ts`).
   */
  output(): void {
    const now = Date.now();
    this.#lastOutput = now;
    if (this.#outputWaiters.size === 0) return;
    for (const waiter of this.#outputWaiters) {
      if (waiter.after >= now) continue;
      this.#outputWaiters.delete(waiter);
      waiter.listener();
    }
  }

  /** Calls `listener` once at the first sign of life after `after` (epoch ms), at once if there was one; returns what unsubscribes it. */
  onOutputAfter(after: number, listener: () => void): () => void {
    if (this.#lastOutput > after) {
      queueMicrotask(listener);
      return () => {};
    }
    const waiter = { after, listener };
    this.#outputWaiters.add(waiter);
    return () => this.#outputWaiters.delete(waiter);
  }

  /**
   * Whether an app of `project` has a request in flight here, finished one within `graceMs`, or finished one after
   * which this workerd has shown no sign of life past the grace (probation's turns). The last keeps the turn until
   * the workerd has answered something since, so a stall right after the turn passed still has `blame.ts` clear
   * the project that held it (its answer was not the workerd's last sign of life).
   */
  busy(project: string, graceMs: number, now = Date.now()): boolean {
    if ((this.#openByProject.get(project) ?? 0) > 0) return true;
    const ended = this.#endedByProject.get(project);
    if (ended === undefined) return false;
    return ended >= now - graceMs || this.#lastOutput <= ended + graceMs;
  }

  /** What was seen of this workerd, for blaming the app that stopped it. */
  evidence(): StallEvidence {
    const open = [...this.#open, ...this.#lost].map(({ app, method, url, sentAt }) => ({ app, method, url, sentAt }));
    return { open, ended: new Map(this.#ended), lastAlive: this.#lastOutput };
  }

  /** The oldest request of `app` in flight here (what the app's log says was stopped). */
  requestOf(app: string): { method: string; url: string } | undefined {
    for (const flight of [...this.#open, ...this.#lost]) if (flight.app === app) return { method: flight.method, url: flight.url };
    return undefined;
  }

  /** Resolves once nothing is in flight. */
  idle(): Promise<void> {
    return this.#open.size === 0 ? Promise.resolve() : new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Closes the connections once the requests on them have finished. */
  destroy(): void {
    for (const socket of this.#sockets.values()) void socket.dispatcher.close().catch(() => {});
  }
}

/** Where the entry point sends requests: the dispatcher's socket of one workerd generation. */
export interface Upstream {
  readonly socket: UpstreamSocket;
  readonly pool: UpstreamPool;
}
