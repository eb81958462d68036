import { readFileSync } from 'node:fs';
import { heapFingerprints, memoryFingerprints, runningFingerprints, sampleRunning } from './running-app.ts';
import { join } from 'node:path';
import { control } from './control-client.ts';
import type { GenerationAssets } from './dispatcher/config.ts';
import type { RoutingTable } from './dispatcher/routing-table.ts';
import { assetsChanged, dispatcherStats, drained, health, startGeneration, stopGeneration, type Generation, type GenerationContext } from './generation.ts';
import type { RuntimeLogger } from '../../src/runtime-contract/log.ts';
import type { DispatcherStats } from './request-stats.ts';
import type { SustainedUse } from './sustained-cpu.ts';
import { mainThreadBusyMs, mainThreadCpuMs, mainThreadRunMs, residentBytes, Watchdog, type WatchdogOptions } from './watchdog.ts';
import { LoadMeter } from './load-stretch.ts';
import type { StartupAdmission } from './startup-budget.ts';
import { ItemExponentialRateLimiter } from '../../src/controller-runtime/rate-limiter.ts';

/** One workerd's cold starts (`Shard.coldStarts`). */
export interface ColdStarts {
  admit(id: string, ask: () => Promise<StartupAdmission>): Promise<{ readonly admission: StartupAdmission; readonly first: boolean }>;
  loading(app: string): Promise<number>;
}

/** What one shard serves: its apps' routing table and the static assets its workerd needs. */
export interface ShardTable {
  readonly routes: RoutingTable;
  readonly assets: readonly GenerationAssets[];
}

/** Why a shard's workerd stopped serving. */
export interface ShardStop {
  /** `cpu` and `memory`: its watchdog ended it; `heap`: V8's heap bound ended it; `crash`: anything else. */
  readonly kind: 'cpu' | 'memory' | 'heap' | 'crash';
  readonly detail: string;
  /** The workerd that stopped, with what the entry point saw of its requests (`upstream.pool.evidence()`). */
  readonly generation: Generation;
  /** The fingerprints of the app code its thread was running when the watchdog stopped it, of the isolate holding the memory past its bound, or of the isolate that passed its heap bound (one, or several where its isolate could not be told apart), if workerd told (`running-app.ts`). */
  readonly runningCode?: readonly string[] | undefined;
  /** Ended for CPU its thread was held by one app over the sustained window (`sustained-cpu.ts`), not for one stretch without yielding. */
  readonly sustained?: boolean;
}

/** A shard's thread saturated over the sustained window while requests were in flight on it (`sustained-cpu.ts`). */
export interface ShardSaturation {
  readonly use: SustainedUse;
  /** The workerd whose thread it is. */
  readonly generation: Generation;
  /** Per sample of its thread (`sampleRunning`), the fingerprints of the apps whose code it ran; undefined when the thread is not asked. */
  readonly samples: ReadonlyArray<readonly string[]> | undefined;
}

export interface ShardContext {
  readonly generation: GenerationContext;
  readonly runDir: string;
  /** How long a replaced workerd may finish its requests. */
  readonly drainTimeoutMs: number;
  /** Delay before restarting a workerd that crashed: doubles from `initialMs` to `maxMs`; reset after a minute up. */
  readonly restartBackoff: { readonly initialMs: number; readonly maxMs: number };
  readonly watchdog: WatchdogOptions;
  /** Isolates a workerd may load before it is replaced by a fresh one (workerd never unloads). */
  readonly maxLoadedWorkers: number;
  /**
   * Resident memory past which a healthy workerd is replaced by a fresh one, blue/green, losing no request
   * (0: never): below the watchdog's bound, so isolates loaded over time and memory a busy hour left behind
   * are let go before the bound ends the workerd and loses its requests. Not sooner than `minAgeMs` after
   * the workerd started, so a working set that does not fit costs a fresh start at that pace, not a loop.
   */
  readonly memoryRecycle: { readonly bytes: number; readonly minAgeMs: number };
  readonly log: RuntimeLogger;
  /** The id of the next workerd the engine starts (every one has its own). */
  nextId(): number;
  /** A replaced workerd is gone; `final` are its last counts if it could still be read. */
  retired(gen: Generation, final: DispatcherStats | undefined): void;
  /** The shard's workerd stopped serving; called before anything of it is torn down, so its evidence is whole. */
  stopped(stop: ShardStop): void;
  /** Ask a stuck workerd's thread which app's code it runs before it is killed (`running-app.ts`). */
  readonly askTheThread?: boolean;
  /** The project of the app an app's code fingerprint was loaded for (`worker-code.ts`), to sum a project's isolates' memory. */
  readonly projectOfCode?: (fingerprint: string) => string | undefined;
  /**
   * Its thread was saturated over the sustained window: the app that held it is held to it by the caller, which
   * answers what to end the workerd for (and the code to lay that on) when cutting that app's requests frees nothing.
   */
  readonly saturated?: (saturation: ShardSaturation) => { readonly detail: string; readonly runningCode: readonly string[] } | undefined;
}

/** How many health checks in a row may fail (answered, but not healthy) before the workerd is replaced. */
const UNHEALTHY_LIMIT = 3;
/** Samples of a saturated thread taken to judge whose code holds it, and the time between them: about a tenth of a second in all. */
const THREAD_SAMPLES = 7;
const THREAD_SAMPLE_GAP_MS = 15;
/** What V8 prints when an isolate passes its heap bound (`--max-old-space-size`) and it ends the process. */
const HEAP_EXHAUSTED = /Reached heap limit|heap out of memory/;

/**
 * Workerds a shard keeps finishing their requests besides the serving one: the container's memory is sized for one
 * (docs/runtime.md). Without a bound a tenant holding one long request across each of many quick generation changes
 * (asset deploys, cold first requests of apps with assets) kept a ~57 MB workerd alive per change: 61 of them, 3.5
 * GB, in 5 s (found in review), past the pod's memory and every tenant of the replica with it.
 */
const MAX_DRAINING_WORKERDS = 1;
/**
 * How long a workerd finishing its requests is given before a newer change of the shard's apps cuts it: that change
 * waits until then. Cut at once, any tenant could cut every co-tenant's requests by causing two changes in a row (an
 * asset deploy, a cold first request of an app with assets; found in review); waiting, it delays the shard's next
 * change by this much at most. A workerd replaced because it crashed or outgrew its memory does not wait.
 */
const MIN_DRAIN_MS = 5_000;

/** A workerd finishing its requests: `done` once it is stopped; `cut` aborted stops it now, whatever it still serves. */
interface Retiring {
  readonly done: Promise<void>;
  readonly cut: AbortController;
  readonly since: number;
}

/**
 * One shard of a replica: a workerd process serving the apps of the projects that hash to it (`shardOf`), so
 * one tenant's stuck code stalls this shard only. It serves the table the engine's convergence loop last
 * applied (pushed to the running workerd, or a new workerd started blue/green when its static assets change),
 * restarts its workerd alone when it crashes or its watchdog ends it, and replaces it once it has loaded too
 * many isolates. Everything that changes its workerd runs one at a time.
 */
export class Shard {
  readonly index: number;
  readonly #ctx: ShardContext;
  #current: Generation | undefined;
  readonly #retiring = new Map<Generation, Retiring>();
  /** What it serves: what a restart starts again with. */
  #applied: ShardTable;
  #lock: Promise<unknown> = Promise.resolve();
  /**
   * A watchdog per workerd still running, the retiring ones included: one finishing its requests is bounded as
   * the serving one is (an app growing without bound there would otherwise have the whole drain time).
   */
  /** Each workerd watched (serving, or finishing its requests): its watchdog, and what its cold starts hold it for. */
  readonly #watchdogs = new Map<Generation, { readonly dog: Watchdog; readonly meter: LoadMeter }>();
  #backoffMs: number;
  #restartTimer: NodeJS.Timeout | undefined;
  /** When the pending restart starts a workerd (while its timer runs). */
  #restartDueAt: number | undefined;
  #unhealthy = 0;
  #recycling = false;
  /** A fresh workerd that failed to start is not tried again before this (the serving one carries on meanwhile). */
  #recycleAfter = 0;
  /** The wait before that next try: doubles from 1 s to a minute with each failure, forgotten at a success. */
  readonly #recycleBackoff = new ItemExponentialRateLimiter<'recycle'>(1000, 60_000);
  /** Its workerd was ended at a limit and is being started again: a moment, not a failing replica. */
  #limitRestart = false;
  #stopped = false;
  /** Restarts of a workerd that crashed or was ended by its watchdog. */
  restarts = 0;
  /** Fresh workerd started in place of a healthy one, by why: too many isolates, too much memory. */
  readonly recycles = { isolates: 0, memory: 0 };
  /** Isolates its workerd reported loaded at the last health check. */
  loaded = 0;
  /** Called once at its next switch to another workerd (requests waiting out a restart listen). */
  readonly #switchListeners = new Set<() => void>();
  /** Changes of its workerd queued or running (`#exclusive`). */
  #queued = 0;
  /**
   * A workerd started again after a stop serves, with the table it had: until the changes queued meanwhile (a
   * pass's new table, say one without a release that stopped it) are applied, its requests still wait.
   */
  #settling = false;
  /** A saturated thread's samples are being taken and judged (one window at a time). */
  #judgingSaturation = false;

  constructor(index: number, ctx: ShardContext, table: ShardTable) {
    this.index = index;
    this.#ctx = ctx;
    this.#applied = table;
    this.#backoffMs = ctx.restartBackoff.initialMs;
  }

  /** The workerd serving now. */
  get current(): Generation | undefined {
    return this.#current;
  }

  /** Every workerd of the shard still running: those finishing their requests, then the serving one. */
  get generations(): Generation[] {
    return [...this.#retiring.keys(), ...(this.#current ? [this.#current] : [])];
  }

  get retiring(): number {
    return this.#retiring.size;
  }

  /**
   * Whether its serving workerd was ended (at a limit, or it died) and a new one is being started within `ms`: a
   * start backing off after crashes further away than that is not waited for.
   */
  restartingWithin(ms: number): boolean {
    const gen = this.#current;
    if (!gen || this.#stopped) return false;
    if (gen.killedFor === undefined && gen.proc.running) return this.#settling;
    return this.#restartDueAt === undefined || this.#restartDueAt - Date.now() <= ms;
  }

  /** Calls `listener` once when it next switches to another workerd; returns what unsubscribes it. */
  onSwitch(listener: () => void): () => void {
    this.#switchListeners.add(listener);
    return () => this.#switchListeners.delete(listener);
  }

  /** Its workerd runs and answered its last health check. */
  get healthy(): boolean {
    return !!this.#current?.proc.running && this.#unhealthy === 0;
  }

  /**
   * It takes traffic: healthy, or restarting right after an app's code stopped it at a limit (its apps are
   * answered 503 for that moment). So an app that keeps tripping its bound cannot make the replica unready.
   */
  get ready(): boolean {
    return this.healthy || this.#limitRestart;
  }

  /** Starts its first workerd, with the table it was made with. */
  start(): Promise<void> {
    return this.#exclusive(() => this.#replace(this.#applied));
  }

  /**
   * Serves `table`: pushed to the running workerd, or a new workerd (blue/green) when the static assets
   * changed or none runs. Rejects when workerd does not take it; the shard then serves what it served.
   */
  apply(table: ShardTable): Promise<void> {
    return this.#exclusive(async () => {
      const current = this.#current;
      // One killed at a limit is not running, though its exit may not have been seen yet: its replacement starts
      // with this table (say, the pass that drops the release that stopped it), not with the one it had, and the
      // restart pending for it finds it replaced.
      if (!current?.proc.running || current.killedFor !== undefined) await this.#replace(table);
      else if (assetsChanged(current, table.assets)) {
        await this.#drainTurn();
        await this.#replace(table);
      } else if (JSON.stringify(table) !== JSON.stringify(this.#applied)) await push(current, table.routes);
      this.#applied = table;
    });
  }

  /** Stops taking work; the serving workerd finishes its requests for at most `drainMs`, as do those already draining. */
  async stop(drainMs: number): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#restartTimer);
    for (const { dog } of this.#watchdogs.values()) dog.stop();
    await this.#lock.catch(() => {});
    const cutoff = setTimeout(() => {
      for (const gen of this.#retiring.keys()) gen.proc.kill();
    }, drainMs);
    const current = this.#current;
    if (current) await drained(current, drainMs).then(() => stopGeneration(current));
    await Promise.all([...this.#retiring.values()].map((r) => r.done));
    clearTimeout(cutoff);
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.#queued += 1;
    const run = this.#lock
      .catch(() => {})
      .then(work)
      .finally(() => {
        this.#queued -= 1;
        if (this.#queued === 0 && this.#settling) {
          this.#settling = false;
          this.#switched();
        }
      });
    this.#lock = run.catch(() => {});
    return run;
  }

  /** `afterStop`: the switch is told once the changes queued behind it are applied too (`#settling`). */
  async #replace(table: ShardTable, afterStop = false): Promise<void> {
    const id = this.#ctx.nextId();
    const gen = await startGeneration(this.#ctx.generation, id, this.index, join(this.#ctx.runDir, `s${this.index}g${id}`), table.assets, table.routes);
    this.#switchTo(gen, afterStop);
  }

  /** Routes to `gen` from now on, then retires the previous workerd once its requests are done. */
  #switchTo(gen: Generation, afterStop = false): void {
    const old = this.#current;
    this.#current = gen;
    this.#unhealthy = 0;
    this.#limitRestart = false;
    this.loaded = 0;
    this.#watch(gen);
    void gen.proc.exited.then(async ({ code, signal }) => {
      try {
        await this.#exited(gen, code, signal);
      } finally {
        gen.upstream.pool.judged();
      }
    });
    this.#ctx.log.info('workerd serving', { shard: this.index, generation: gen.id, pid: gen.proc.pid });
    if (old && old !== gen && !old.retiring) this.#retire(old);
    if (afterStop) this.#settling = true;
    else this.#switched();
  }

  #switched(): void {
    const listeners = [...this.#switchListeners];
    this.#switchListeners.clear();
    for (const listener of listeners) listener();
  }

  #watch(gen: Generation): void {
    const pool = gen.upstream.pool;
    const meter = new LoadMeter(
      () => mainThreadRunMs(gen.proc.pid, (path) => readFileSync(path, 'utf8')),
      () => health(gen, 5000).catch(() => undefined),
    );
    const stopHeads = pool.onHead(() => meter.alive());
    const dog = new Watchdog(
      {
        ping: () => health(gen, 60_000),
        rss: () => residentBytes(gen.proc.pid, (path) => readFileSync(path, 'utf8')),
        cpuMs: () => mainThreadCpuMs(gen.proc.pid, (path) => readFileSync(path, 'utf8')),
        lastOutput: () => pool.lastOutput,
        answered: () => {
          pool.output();
          meter.alive();
        },
        busyMs: () => mainThreadBusyMs(gen.proc.pid, (path) => readFileSync(path, 'utf8')),
        inFlight: () => pool.inFlightByApp(true),
        waitedMs: () => pool.waitedMs(),
      },
      this.#ctx.watchdog,
      {
        stuck: (kind, detail) => this.#stuck(gen, kind, detail),
        sustained: (use) => this.#saturated(gen, use),
        healthy: (loads, rss) => {
          if (gen !== this.#current) return;
          this.#unhealthy = 0;
          this.loaded = loads;
          const age = Date.now() - gen.startedAt;
          if (age > 60_000) this.#backoffMs = this.#ctx.restartBackoff.initialMs;
          const recycle = this.#ctx.memoryRecycle;
          if (loads > this.#ctx.maxLoadedWorkers) this.#recycle(gen, 'isolates', { loaded: loads });
          else if (recycle.bytes > 0 && rss !== undefined && rss > recycle.bytes && age >= recycle.minAgeMs) {
            this.#recycle(gen, 'memory', { loaded: loads, residentMiB: Math.round(rss / 1048576), recycleAtMiB: Math.round(recycle.bytes / 1048576) });
          }
        },
        unhealthy: () => {
          if (gen !== this.#current || !gen.proc.running) return; // an exit is handled as such
          this.#unhealthy += 1;
          if (this.#unhealthy >= UNHEALTHY_LIMIT) {
            this.#ctx.log.error('workerd answers its health checks wrongly; restarting it', { shard: this.index, pid: gen.proc.pid });
            gen.proc.kill();
          }
        },
      },
    );
    dog.start();
    this.#watchdogs.set(gen, { dog, meter });
    void gen.proc.exited.then(() => {
      dog.stop();
      meter.end();
      stopHeads();
      this.#watchdogs.delete(gen);
    });
  }

  /**
   * The cold starts of workerd `generation`, if it is this shard's (serving, or finishing its requests): `admit` lets
   * loader id `id`'s code in (`LoadMeter.admit`: `ask` asks the budget once per id); `loading` says app `app`'s code is
   * handed over, so its watchdog allows for the load, and answers what the load held the shard for (`load-stretch.ts`).
   */
  coldStarts(generation: number): ColdStarts | undefined {
    for (const [gen, { dog, meter }] of this.#watchdogs) {
      if (gen.id !== generation) continue;
      return {
        admit: (id, ask) => meter.admit(id, ask),
        loading: (app) => {
          dog.loading();
          return meter.measure(gen.upstream.pool, app);
        },
      };
    }
    return undefined;
  }

  /**
   * Its watchdog found the thread saturated over the sustained window: a few samples of what it runs (when the thread
   * is asked), then the engine's judgement; the workerd is ended as at the CPU bound when that is what frees it.
   */
  #saturated(gen: Generation, use: SustainedUse): void {
    const saturated = this.#ctx.saturated;
    const sampling = () => !this.#stopped && gen.killedFor === undefined && gen.proc.running;
    if (!saturated || this.#judgingSaturation || !sampling()) return;
    this.#judgingSaturation = true;
    // A thread that could not be sampled names nobody: it is not judged from the requests in flight instead, which a
    // tenant can pile up on a neighbour's app (they wait for the thread it holds).
    const samples = this.#ctx.askTheThread
      ? sampleRunning(gen.proc.pid, gen.dir, THREAD_SAMPLES, THREAD_SAMPLE_GAP_MS, sampling, () => gen.killedFor !== undefined).catch(() => [])
      : Promise.resolve(undefined);
    void samples
      .then((found) => {
        if (!sampling()) return;
        const end = saturated({ use, generation: gen, samples: found });
        if (!end) return;
        this.#watchdogs.get(gen)?.dog.stop();
        this.#stuck(gen, 'cpu', end.detail, { runningCode: end.runningCode, sustained: true });
      })
      .finally(() => (this.#judgingSaturation = false));
  }

  /**
   * Its watchdog found the workerd stuck or too big: the app to blame is judged (unless `judged` says already), then
   * it is killed and, if it was serving, started again at once (a retiring one has a successor already: its requests
   * in flight are lost).
   */
  #stuck(gen: Generation, kind: 'cpu' | 'memory', detail: string, judged?: { readonly runningCode: readonly string[]; readonly sustained: boolean }): void {
    if (this.#stopped || gen.killedFor) return;
    const serving = gen === this.#current;
    gen.killedFor = kind; // from now on requests for its apps wait for the restart (`restartingWithin`)
    if (serving) this.#limitRestart = true;
    const running: Promise<readonly string[] | undefined> = judged ? Promise.resolve(judged.runningCode) : this.#judge(gen, kind);
    void running
      .catch(() => undefined) // nothing told: `AppLimits.stopped` decides without it
      .then((runningCode) => {
        try {
          if (!this.#stopped) this.#ctx.stopped({ kind, detail, generation: gen, runningCode, ...(judged?.sustained ? { sustained: true } : {}) });
        } finally {
          gen.upstream.pool.judged();
          gen.proc.kill();
          if (serving) this.#restart(gen, 0);
        }
      });
  }

  /**
   * Which app's code a workerd the watchdog stopped was running, or whose isolate holds its memory (`running-app.ts`).
   * The workerd is frozen (SIGSTOP) while V8's files are read, so its requests in flight wait for the verdict and a
   * growing isolate grows no more; the files are read asynchronously, so the other shards are served meanwhile.
   */
  async #judge(gen: Generation, kind: 'cpu' | 'memory'): Promise<string[] | undefined> {
    if (!this.#ctx.askTheThread) return undefined;
    if (kind === 'cpu') return runningFingerprints(gen.proc.pid, gen.dir);
    try {
      process.kill(gen.proc.pid, 'SIGSTOP');
    } catch {
      // gone already: its isolates' accounts and files are still there to read
    }
    const boundBytes = this.#ctx.watchdog.memoryLimitBytes;
    const resident = residentBytes(gen.proc.pid, (path) => readFileSync(path, 'utf8')) ?? boundBytes;
    return memoryFingerprints(gen.proc.isolateMemory, gen.proc.pid, gen.dir, { boundBytes, residentBytes: resident }, this.#ctx.projectOfCode ?? (() => undefined));
  }

  async #exited(gen: Generation, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    if (gen !== this.#current || gen.retiring || this.#stopped || gen.killedFor) return;
    const output = gen.proc.output();
    const heap = HEAP_EXHAUSTED.test(output);
    this.#limitRestart = heap;
    this.#ctx.log.error(heap ? 'workerd ran an isolate out of heap; restarting it' : 'workerd exited unexpectedly; restarting it', {
      shard: this.index,
      pid: gen.proc.pid,
      code,
      signal,
      output: output.slice(-2000),
    });
    // V8's trace of its last collection names the isolate that passed its heap bound: its app, as a stuck thread's (`running-app.ts`).
    const runningCode = heap && this.#ctx.askTheThread ? await heapFingerprints(gen.proc.isolateMemory, gen.proc.pid, gen.dir) : undefined;
    if (this.#stopped) return;
    this.#ctx.stopped({ kind: heap ? 'heap' : 'crash', detail: heap ? 'an isolate passed its heap bound' : `workerd exited (${signal ?? `code ${code}`})`, generation: gen, runningCode });
    // A heap bound reached is an app's doing and contained: no back-off. A crash may repeat: back off.
    this.#restart(gen, heap ? 0 : this.#nextBackoff());
  }

  #nextBackoff(): number {
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(delay * 2, this.#ctx.restartBackoff.maxMs);
    return delay;
  }

  /**
   * Replaces `dead` (ended, or being killed) by a new workerd with what the shard serves, after `delayMs`,
   * unless something replaced it meanwhile; a start that fails is tried again, backing off.
   */
  #restart(dead: Generation, delayMs: number): void {
    if (this.#stopped || this.#restartTimer) return;
    this.#restartDueAt = Date.now() + delayMs;
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      this.#restartDueAt = undefined;
      this.restarts += 1;
      this.#exclusive(async () => {
        if (this.#stopped || this.#current !== dead) return;
        await this.#replace(this.#applied, true);
      }).catch((err: unknown) => {
        this.#limitRestart = false; // a start that fails is the replica's problem
        this.#ctx.log.error('restarting workerd failed', { shard: this.index, error: err });
        this.#restart(dead, this.#nextBackoff());
      });
    }, delayMs);
    this.#restartTimer.unref();
  }

  /**
   * A fresh workerd with the same table: apps load again on demand, and the isolates of the old one (and the
   * memory they hold) go with it once its requests are done.
   */
  #recycle(gen: Generation, why: 'isolates' | 'memory', detail: Record<string, number>): void {
    if (this.#recycling || Date.now() < this.#recycleAfter) return;
    this.#recycling = true;
    const message = why === 'isolates' ? 'workerd holds too many isolates' : 'workerd holds too much memory';
    this.#ctx.log.info(`${message}; starting a fresh one (apps load again on demand)`, { shard: this.index, ...detail });
    this.#exclusive(async () => {
      if (gen !== this.#current) return;
      await this.#replace(this.#applied);
      this.recycles[why] += 1;
      this.#recycleBackoff.forget('recycle');
    })
      .catch((err: unknown) => {
        const retryInMs = this.#recycleBackoff.when('recycle');
        this.#recycleAfter = Date.now() + retryInMs;
        this.#ctx.log.error('starting a fresh workerd failed; the one serving carries on', { shard: this.index, error: err, retryInMs });
      })
      .finally(() => (this.#recycling = false));
  }

  /**
   * Stops `old` once the requests it has are done (at most the drain time). Its final counts join the totals
   * as it leaves the list the request statistics read, so nothing is counted twice.
   */
  #retire(old: Generation): void {
    old.retiring = true;
    let final: DispatcherStats | undefined;
    const cut = new AbortController();
    const cutNow = new Promise((resolve) => cut.signal.addEventListener('abort', resolve));
    const done = (async () => {
      await Promise.race([drained(old, this.#ctx.drainTimeoutMs), cutNow]);
      final = await dispatcherStats(old);
      // Cut: its requests end anyway, so it is not given the grace a drained one gets to exit by itself.
      await stopGeneration(old, cut.signal.aborted ? 0 : undefined);
    })()
      .catch((err: unknown) => this.#ctx.log.error('retiring workerd failed', { shard: this.index, generation: old.id, error: err }))
      .finally(() => {
        this.#retiring.delete(old);
        this.#ctx.retired(old, final); // with its last read if it could not be read now (it crashed)
      });
    this.#retiring.set(old, { done, cut, since: Date.now() });
    this.#cutPastBound();
  }

  /** Waits until a replacement would cut no workerd that has finished its requests for less than {@link MIN_DRAIN_MS}. */
  async #drainTurn(): Promise<void> {
    const draining = [...this.#retiring.values()].filter((r) => !r.cut.signal.aborted);
    const oldest = draining.length >= MAX_DRAINING_WORKERDS ? draining[0] : undefined;
    const wait = oldest ? oldest.since + MIN_DRAIN_MS - Date.now() : 0;
    if (!oldest || wait <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([oldest.done, new Promise((resolve) => (timer = setTimeout(resolve, wait)))]);
    clearTimeout(timer);
  }

  /** Stops the oldest workerds finishing their requests past {@link MAX_DRAINING_WORKERDS}: their requests end now. */
  #cutPastBound(): void {
    // The map keeps the order they were retired in: oldest first.
    const draining = [...this.#retiring.entries()].filter(([, r]) => !r.cut.signal.aborted);
    for (const [gen, r] of draining.slice(0, Math.max(0, draining.length - MAX_DRAINING_WORKERDS))) {
      this.#ctx.log.warn('workerd stopped before its requests finished: the shard changed workerds again meanwhile', { shard: this.index, generation: gen.id, drainingFor: Date.now() - r.since });
      r.cut.abort();
    }
  }
}

async function push(gen: Generation, routes: RoutingTable): Promise<void> {
  const res = await control(gen.controlSocket, 'PUT', '/routes', routes, 10_000);
  if (res.status !== 204) throw new Error(`the dispatcher refused the routing table (${res.status})`);
}
