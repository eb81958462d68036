import { setTimeout as delay } from 'node:timers/promises';
import { control } from './control-client.ts';
import type { RoutedApp } from './dispatcher/routing-table.ts';
import { stopGeneration, type Generation } from './generation.ts';

/** What a load check found; `hung`: the checker did not answer in time (it is stuck in that build). */
export interface LoadCheck {
  readonly loaded: boolean;
  readonly error?: string;
  readonly hung: boolean;
  /** The checker's CPU time during the check, when read: what the build's load took (its project is charged it, a shard's budget expects it). */
  readonly cpuMs?: number;
}

/** Load checks one checker workerd runs before it is replaced (each leaves an isolate of about 1.6 MB). */
const CHECKS_PER_CHECKER = 100;
/** Its successor starts this many checks before. */
const SPARE_AHEAD = 10;
/** How long after a failed probe the checker's exit is waited for, to tell a crash from a timeout. */
const CRASH_SEEN_MS = 1000;

/**
 * The CPU time a build's loading may take in the checker: what a shard allows an isolate's start (its CPU limit
 * plus the startup allowance), so a build that passes also loads where it is served. `cpuMs` reads the checker's
 * main thread (`mainThreadCpuMs`), every `intervalMs`.
 */
export interface LoadCpuBound {
  readonly limitMs: number;
  readonly cpuMs: (pid: number) => number | undefined;
  readonly intervalMs?: number;
}

/**
 * Loads new builds in a workerd of their own before any shard serves them: a build that loops at its top level
 * (which no bound of workerd's stops) or does not load at all must not touch a workerd that serves apps. The
 * checker is kept between deploys, and replaced after a build that hung it, or once its isolates add up.
 */
export class LoadChecker {
  readonly #start: () => Promise<Generation>;
  readonly #timeoutMs: number;
  readonly #cpu: LoadCpuBound | undefined;
  #checker: Generation | undefined;
  /** The next checker, started as the last one was retired: a pass never waits for a workerd to start or stop. */
  #spare: Promise<Generation> | undefined;
  #checks = 0;
  /** The check under way: the next one starts after it. */
  #under: Promise<unknown> = Promise.resolve();
  /** Builds checked since start. */
  total = 0;

  /**
   * `start` starts a checker workerd (with no apps); `timeoutMs` is how long a build may take to load, and `cpu`
   * how much of the checker's CPU time (a build that loops at its top level is refused once past it, not after
   * `timeoutMs`: the checks of every project wait for the one under way).
   */
  constructor(start: () => Promise<Generation>, timeoutMs: number, cpu?: LoadCpuBound) {
    this.#start = start;
    this.#timeoutMs = timeoutMs;
    this.#cpu = cpu;
  }

  /**
   * Loads an app's code (its module top level, none of its handlers) and answers whether it loaded, with the
   * CPU time the checker's thread spent on it. One at a time: the thread is one, and a check's CPU time is then
   * that build's alone (it is charged to its project), and a build that never finishes loading is the only one
   * found hung (tried again alone in a fresh checker when it crashed one others were loaded in before).
   */
  check(key: string, app: RoutedApp): Promise<LoadCheck> {
    const answer = this.#under.then(() => this.#checkNow(key, app));
    this.#under = answer.catch(() => {});
    return answer;
  }

  async #checkNow(key: string, app: RoutedApp, again = false): Promise<LoadCheck> {
    if (this.#checker && !this.#checker.proc.running) this.#retire(); // it crashed: its directory goes too
    if (!this.#checker) {
      const next = this.#spare ?? this.#start();
      this.#spare = undefined;
      this.#checker = await next;
      this.#checks = 0;
      // A spare that died while it waited is no checker.
      if (!this.#checker.proc.running) this.#checker = await this.#start();
    }
    const checker = this.#checker;
    const used = this.#checks > 0;
    const stuck = this.#cpu && new StuckWatch(checker.proc.pid, this.#cpu);
    let computedPast = false;
    const hung: Promise<LoadCheck> | undefined = stuck?.stuck
      .then(() => ({
        loaded: false,
        error: `Failed to start Worker: it computed for more than ${this.#cpu!.limitMs} ms of CPU time without finishing loading`,
        hung: true,
        cpuMs: this.#cpu!.limitMs,
      }))
      .then((answer) => {
        computedPast = true;
        return answer;
      });
    const probe = this.#probe(checker, key, app).then((answer) => {
      // A build the checker gave up on took the bound, whatever was read.
      const cpuMs = answer.hung ? this.#cpu?.limitMs : stuck?.answered();
      return cpuMs === undefined ? answer : { ...answer, cpuMs };
    });
    const answer = await (hung ? Promise.race([probe, hung]) : probe).finally(() => stuck?.stop());
    // The probe's connection failed and the checker is gone: it crashed (a timeout leaves it running).
    const crashed = answer.hung && !computedPast && (await Promise.race([checker.proc.exited.then(() => true), delay(CRASH_SEEN_MS).then(() => false)]));
    this.#checks += 1;
    this.total += 1;
    if (answer.hung || this.#checks >= CHECKS_PER_CHECKER) this.#retire();
    // The next checker starts ahead of the retirement, so no check waits for a workerd to start.
    else if (this.#checks >= CHECKS_PER_CHECKER - SPARE_AHEAD && !this.#spare) this.#startSpare();
    // The checker crashed after loading other builds: what they left there (their isolates' memory) may be what
    // crashed it, so the build is tried once more, alone in a fresh checker, before it is refused (a crash is
    // quick; a build that computes past the bound is refused at once). The retry's measure is the build's.
    if (!crashed || !used || again) return answer;
    return this.#checkNow(key, app, true);
  }

  /** Starts the checker now rather than at the first check (an app's first request on demand would wait for it). */
  warm(): void {
    if (!this.#checker && !this.#spare) this.#startSpare();
  }

  async stop(): Promise<void> {
    const checker = this.#checker;
    const spare = this.#spare;
    this.#checker = undefined;
    this.#spare = undefined;
    await Promise.all([checker && end(checker), spare?.then(end, () => {})]);
  }

  /** Ends the checker in the background and starts the next one (unless it is started already). */
  #retire(): void {
    const old = this.#checker;
    this.#checker = undefined;
    if (old) void end(old).catch(() => {});
    if (!this.#spare) this.#startSpare();
  }

  #startSpare(): void {
    const spare = this.#start();
    spare.catch(() => {}); // a start that fails fails the check that takes it
    this.#spare = spare;
  }

  async #probe(checker: Generation, key: string, app: RoutedApp): Promise<LoadCheck> {
    try {
      const res = await control<{ loaded: boolean; error?: string }>(checker.controlSocket, 'POST', '/probe', { key, app }, this.#timeoutMs);
      return res.status === 200 ? { ...res.body, hung: false } : { loaded: false, error: `the dispatcher answered ${res.status}`, hung: false };
    } catch {
      // That workerd answered its control socket before: the build is what does not finish loading.
      return { loaded: false, error: `Failed to start Worker: it did not load within ${this.#timeoutMs} ms`, hung: true };
    }
  }
}

/** Ends a checker: nothing of its own to finish. */
function end(checker: Generation): Promise<void> {
  checker.proc.kill();
  return stopGeneration(checker);
}

/**
 * Whether the checker's thread has computed for the bound's `limitMs` since the probe began: it is then stuck in a
 * build's top level.
 */
class StuckWatch {
  readonly stuck: Promise<void>;
  #sinceCpuMs: number | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #read: () => number | undefined;

  constructor(pid: number, bound: LoadCpuBound) {
    this.#read = () => bound.cpuMs(pid);
    this.#sinceCpuMs = this.#read();
    let resolve!: () => void;
    this.stuck = new Promise((r) => (resolve = r));
    this.#timer = setInterval(() => {
      const now = this.#read();
      if (now === undefined) return;
      this.#sinceCpuMs ??= now;
      if (now - this.#sinceCpuMs > bound.limitMs) {
        this.stop();
        resolve();
      }
    }, bound.intervalMs ?? 100);
    this.#timer.unref();
  }

  /** The probe answered: the CPU time since it began, when read. */
  answered(): number | undefined {
    const now = this.#read();
    const since = this.#sinceCpuMs;
    return now === undefined || since === undefined ? undefined : now - since;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
