import { mkdir, readdir, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { AppLogs, type AppLogListener } from './app-logs.ts';
import { DEFAULT_ARTIFACT_LIMITS, type ArtifactLimits } from './artifact.ts';
import { BuildStore, buildKey, type BuildStoreOptions } from './build-store.ts';
import { ASSETS_BINDING } from './compatibility.ts';
import { control } from './control-client.ts';
import type { GenerationAssets } from './dispatcher/config.ts';
import type { RoutedApp, RoutingTable } from './dispatcher/routing-table.ts';
import { EntryProxy } from './entry-proxy.ts';
import { BuildLoadError } from './errors.ts';
import { assetsSignature, drained, health, killLeftovers, startGeneration, stopGeneration, type Generation, type GenerationContext } from './generation.ts';
import { assignHosts, defaultHost, hostsOf } from './hosts.ts';
import { silentRuntimeLogger, type RuntimeLogger } from './log.ts';
import { startNodeService } from './node-service.ts';
import type { AppDeployment, ArtifactSource, ServedApp } from './ports.ts';
import { RequestStats, type DispatcherStats } from './request-stats.ts';
import { Waiters } from './waiters.ts';
import { workerCode, workerFingerprint, type LiveApp } from './worker-code.ts';
import { resolveWorkerdBinary, workerdCompatibilityDate } from './workerd-process.ts';

export interface RuntimeEngineOptions {
  readonly artifacts: ArtifactSource;
  /** A writable directory of its own: unpacked builds, workerd configs and sockets. Keep the path short (Unix socket paths are limited to ~100 bytes). */
  readonly dataDir: string;
  /** Default hosts are `<appId>.<project>.<baseDomain>`. */
  readonly baseDomain: string;
  /** The entry point's address (default: a free port on 127.0.0.1). */
  readonly listen?: { readonly port?: number; readonly host?: string };
  /** Scheme and port of `ServedApp.url` (default `https`, no port). */
  readonly publicScheme?: 'http' | 'https';
  readonly publicPort?: number;
  /**
   * Keep the client's `X-Forwarded-For/-Proto/-Host` and `X-Request-Id` (appending to `-For`): set it when the
   * runtime sits behind an ingress or load balancer that sets them. Otherwise they are replaced, so a client
   * cannot pretend to have come over HTTPS or from another address.
   */
  readonly trustForwardedHeaders?: boolean;
  /** `Retry-After` seconds on 503 answers (default 1). */
  readonly retryAfterSeconds?: number;
  /** Default: the installed `@cloudflare/workerd-*` package's binary. */
  readonly workerdBinary?: string;
  /** For apps that set none (default 100). */
  readonly defaultMaxConcurrentRequests?: number;
  /** Requests that may wait for a slot, as a multiple of the app's limit (default 1). They wait at most 10 s. */
  readonly queue?: { readonly depthFactor?: number };
  /** How long workerd may take to start (default 30 s). */
  readonly startTimeoutMs?: number;
  /** How long a replaced workerd may keep finishing in-flight requests (default 30 s). */
  readonly drainTimeoutMs?: number;
  /** How long an app's logs keep being collected after its last follower left (default 5 minutes). */
  readonly logLingerMs?: number;
  /**
   * Isolates one workerd may have loaded before the runtime replaces it with a fresh one, unloading every app
   * (requested apps load again on demand). workerd never unloads on its own, and about 1.6 MB each (default 2000).
   */
  readonly maxLoadedWorkers?: number;
  readonly healthCheck?: { readonly intervalMs?: number; readonly timeoutMs?: number; readonly failures?: number };
  /** Delay before restarting a crashed workerd: doubles from `initialMs` to `maxMs`; reset after a minute up. */
  readonly restartBackoff?: { readonly initialMs?: number; readonly maxMs?: number };
  readonly artifactLimits?: Partial<ArtifactLimits>;
  /** How builds are unpacked: at once at most, the room they have, a project's quota (`BuildStore`). */
  readonly builds?: Omit<BuildStoreOptions, 'parse'>;
  readonly log?: RuntimeLogger;
}

export interface RuntimeStatus {
  /** workerd runs and answered its last health check. */
  readonly ready: boolean;
  readonly generation: number;
  readonly pid: number;
  /** Crash restarts since start. */
  readonly restarts: number;
  /** workerd processes launched since start. */
  readonly workerdStarts: number;
  readonly apps: number;
  /** App isolates the serving workerd has loaded. */
  readonly loadedWorkers: number;
  /** Builds loaded in the checker workerd before they were served, since start. */
  readonly loadChecks: number;
}

/** What a load check found; `hung`: the checker did not answer in time (it is stuck in that build). */
interface LoadCheck {
  readonly loaded: boolean;
  readonly error?: string;
  readonly hung: boolean;
}

/** An app as the routing table has it: what it serves and under which loader id. */
interface Served {
  readonly live: LiveApp;
  readonly id: string;
  /** Reports to the tail worker (part of `id`). */
  readonly tailed: boolean;
}

const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const MAX_SOCKET_DIR = 90;
/** Load checks one checker workerd runs before it is replaced (each leaves an isolate of about 1.6 MB). */
const CHECKS_PER_CHECKER = 100;
/** workerd's Worker Loader refuses these; they say the build cannot load, not that loading failed for now. */
const LOAD_FAILURE = /^(Error: )?(Failed to start Worker|No such compatibility flag|Dynamic Worker (code|env) size|.*must contain at least one module)/;

/**
 * The runtime engine: serves runtime apps on workerd, whose dispatcher worker routes each request by `Host`
 * to the app's isolate (`dispatcher/dispatcher.js`); no request crosses this process.
 *
 * The controller declares what each app serves (`deploy`, `remove`); one loop converges on it. A change of
 * code or environment loads the app's new isolate in the running workerd (checked before traffic moves: a
 * build that cannot load is refused with `BuildLoadError` and the app keeps its previous build), then the
 * routing table moves to it. A change of an app's static assets starts a new workerd on the same entry
 * socket and drains the old one. A workerd that crashes or stops answering is restarted with backoff.
 */
export class RuntimeEngine {
  /** What the apps log (console lines, exceptions, each request's outcome), collected by workerd's tail worker. */
  readonly logs = new AppLogs();
  readonly #o: RuntimeEngineOptions;
  readonly #log: RuntimeLogger;
  readonly #desired = new Map<string, { app: AppDeployment; version: number }>();
  readonly #served = new Map<string, Served>();
  readonly #waiters = new Waiters<ServedApp | undefined>();
  readonly #retiring = new Map<Generation, Promise<void>>();
  /** Loader id → the app it loads, for the dispatcher's `GET /code/{id}`. */
  readonly #code = new Map<string, LiveApp>();
  /** Worker fingerprint → why workerd refused it: loading is deterministic, so it is not tried again. */
  readonly #loadFailures = new Map<string, BuildLoadError>();
  /** Worker fingerprint → attempts that failed for another reason; part of the loader id, as workerd caches a failed id. */
  readonly #attempts = new Map<string, number>();
  /** Worker fingerprints that loaded in a check: a rollback to one needs no check again. */
  readonly #checked = new Set<string>();
  readonly #stats = new RequestStats();
  /** App key → how many follow its logs; an app reports to the tail worker while followed and for a while after. */
  readonly #followers = new Map<string, number>();
  readonly #lingers = new Map<string, NodeJS.Timeout>();
  #assignment: ReadonlyMap<string, string> = new Map();
  #ctx: GenerationContext | undefined;
  /** The entry point, in front of the serving generation's dispatcher. */
  readonly #entry: EntryProxy;
  #address: AddressInfo | undefined;
  #nodeService: Server | undefined;
  #builds: BuildStore | undefined;
  #current: Generation | undefined;
  /** The workerd that load-checks new builds, and how many it has checked. */
  #checker: Generation | undefined;
  #checks = 0;
  #loadChecks = 0;
  #version = 0;
  #generations = 0;
  #dirty = false;
  #recycle = false;
  #loop: Promise<void> | undefined;
  #stopped = false;
  #restarts = 0;
  #workerdStarts = 0;
  #loaded = 0;
  #backoffMs: number;
  #restartTimer: NodeJS.Timeout | undefined;
  #healthTimer: NodeJS.Timeout | undefined;
  #healthFailures = 0;

  constructor(options: RuntimeEngineOptions) {
    this.#o = options;
    this.#log = options.log ?? silentRuntimeLogger;
    this.#backoffMs = options.restartBackoff?.initialMs ?? 100;
    this.#entry = new EntryProxy({ trustForwardedHeaders: options.trustForwardedHeaders, retryAfterSeconds: options.retryAfterSeconds, log: this.#log });
  }

  get #runDir(): string {
    return join(this.#o.dataDir, 'run');
  }

  /** The entry point's address, once started. */
  get address(): AddressInfo {
    if (!this.#address) throw new Error('the runtime engine is not running');
    return this.#address;
  }

  /** Opens the entry socket, prepares the data directory and starts workerd (with no apps yet). */
  async start(): Promise<void> {
    if (this.#runDir.length > MAX_SOCKET_DIR) throw new Error(`runtime dataDir is too long for Unix socket paths: ${this.#o.dataDir}`);
    const binary = this.#o.workerdBinary ?? resolveWorkerdBinary();
    const maxCompatibilityDate = await workerdCompatibilityDate(binary);
    const buildsDir = join(this.#o.dataDir, 'builds');
    await killLeftovers(this.#runDir);
    await rm(this.#runDir, { recursive: true, force: true }); // stale sockets of a previous process
    await mkdir(this.#runDir, { recursive: true, mode: 0o700 }); // the sockets reach every app: this process only
    await mkdir(buildsDir, { recursive: true });
    for (const name of await readdir(buildsDir)) if (name.startsWith('.tmp-')) await rm(join(buildsDir, name), { recursive: true, force: true });
    this.#builds = new BuildStore(buildsDir, this.#o.artifacts, {
      ...this.#o.builds,
      parse: { limits: { ...DEFAULT_ARTIFACT_LIMITS, ...this.#o.artifactLimits }, maxCompatibilityDate },
    });
    const runtimeSocket = join(this.#runDir, 'runtime.sock');
    this.#nodeService = await startNodeService(runtimeSocket, { logs: this.logs, code: async (id) => this.#codeOf(id) });
    this.#ctx = { binary, startTimeoutMs: this.#o.startTimeoutMs ?? 30_000, log: this.#log, runtimeSocket };
    this.#switchTo(await this.#startGeneration([], this.#table().routes));
    try {
      this.#address = await this.#entry.listen(this.#o.listen?.port ?? 0, this.#o.listen?.host ?? '127.0.0.1');
    } catch (err) {
      // The port is taken, say: nothing of this start may outlive it.
      await this.stop(0);
      throw err;
    }
    const interval = this.#o.healthCheck?.intervalMs ?? 2000;
    this.#healthTimer = setInterval(() => void this.#checkHealth(), interval);
    this.#healthTimer.unref();
    this.#log.info('runtime engine started', { workerd: binary, maxCompatibilityDate, pid: this.#current?.proc.pid, address: this.#address });
  }

  /**
   * Stops taking requests and stops workerd, letting requests in flight finish for at most `drainMs` (default
   * the drain timeout). Pending deploys are rejected.
   */
  async stop(drainMs = this.#o.drainTimeoutMs ?? 30_000): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#lingers.values()) clearTimeout(timer);
    clearInterval(this.#healthTimer);
    clearTimeout(this.#restartTimer);
    await this.#loop?.catch(() => {});
    this.#waiters.rejectAll(new Error('the runtime engine stopped'));
    // No new connections; kept-alive ones close once idle, the rest when workerd is stopped after the drain.
    const closed = this.#address ? this.#entry.close() : Promise.resolve();
    await this.#stopChecker();
    // Generations already draining get the same time as the serving one, not their own drain timeout.
    const cutoff = setTimeout(() => {
      for (const gen of this.#retiring.keys()) gen.proc.kill();
    }, drainMs);
    const current = this.#current;
    if (current) await drained(current, drainMs).then(() => stopGeneration(current));
    await Promise.all(this.#retiring.values());
    clearTimeout(cutoff);
    this.#entry.server.closeAllConnections();
    await closed;
    await new Promise((resolve) => (this.#nodeService ? this.#nodeService.close(resolve) : resolve(undefined)));
  }

  /** The host an app is always served on. */
  defaultHost(project: string, appId: string): string {
    return defaultHost(project, appId, this.#o.baseDomain);
  }

  /**
   * Declares what an app serves, replacing any earlier deployment of it. Resolves once requests to the app's
   * hosts reach `app.buildId` with `app.env`; rejects with `ArtifactError` (invalid artifact),
   * `BuildLoadError` (workerd cannot load it) or the artifact source's error, in which case the app keeps
   * serving what it served before. Idempotent: deploying what is served resolves at once.
   */
  deploy(app: AppDeployment): Promise<ServedApp> {
    if (!this.#ctx || this.#stopped) return Promise.reject(new Error('the runtime engine is not running'));
    if (!LABEL.test(app.project) || !LABEL.test(app.appId)) return Promise.reject(new TypeError(`project and app id must be DNS labels: ${app.project}/${app.appId}`));
    const limit = app.maxConcurrentRequests;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) return Promise.reject(new TypeError('maxConcurrentRequests must be a positive integer'));
    const key = `${app.project}/${app.appId}`;
    this.#desired.set(key, { app, version: ++this.#version });
    return this.#await(key).then((served) => {
      if (!served) throw new Error(`app ${key} was removed while it was being deployed`);
      return served;
    });
  }

  /** Stops serving an app (idempotent); resolves once its hosts no longer route. */
  async remove(project: string, appId: string): Promise<void> {
    if (!this.#ctx || this.#stopped) throw new Error('the runtime engine is not running');
    const key = `${project}/${appId}`;
    this.#desired.delete(key);
    ++this.#version;
    await this.#await(key);
    if (!this.#desired.has(key)) this.logs.forget(key);
  }

  /**
   * Follows an app's logs: calls `listener` with each new entry. Collecting them costs every request of the app
   * (a tail worker invocation), so it runs only while someone follows, as `wrangler tail` does: the first
   * follower loads the app's isolate anew with the tail worker attached, and the promise resolves once its
   * requests report; after the last one leaves, collection goes on for `logLingerMs`.
   */
  async followLogs(key: string, listener: AppLogListener): Promise<() => void> {
    const unsubscribe = this.logs.subscribe(key, listener);
    clearTimeout(this.#lingers.get(key));
    this.#lingers.delete(key);
    const count = (this.#followers.get(key) ?? 0) + 1;
    this.#followers.set(key, count);
    if (count === 1 && this.#desired.has(key) && this.#ctx && !this.#stopped) {
      ++this.#version;
      await this.#await(key).catch(() => undefined); // a build that cannot be served has no logs to wait for
    }
    let left = false;
    return () => {
      if (left) return;
      left = true;
      unsubscribe();
      const remaining = (this.#followers.get(key) ?? 1) - 1;
      this.#followers.set(key, Math.max(remaining, 0));
      if (remaining > 0) return;
      const timer = setTimeout(() => {
        this.#lingers.delete(key);
        if ((this.#followers.get(key) ?? 0) > 0) return;
        this.#followers.delete(key);
        if (this.#desired.has(key)) this.#kick();
      }, this.#o.logLingerMs ?? 300_000);
      timer.unref();
      this.#lingers.set(key, timer);
    };
  }

  /** The app's served isolate reports to the tail worker: someone follows its logs, or did within the linger. */
  collectingLogs(key: string): boolean {
    return this.#served.get(key)?.tailed ?? false;
  }

  /** What the runtime serves for an app now, if anything. */
  served(project: string, appId: string): ServedApp | undefined {
    return this.#servedApp(`${project}/${appId}`);
  }

  /** Every served app. */
  list(): ServedApp[] {
    return [...this.#served.keys()].sort().flatMap((key) => this.#servedApp(key) ?? []);
  }

  status(): RuntimeStatus {
    const gen = this.#current;
    return {
      ready: !!gen && gen.proc.running && this.#healthFailures === 0,
      generation: gen?.id ?? 0,
      pid: gen?.proc.pid ?? 0,
      restarts: this.#restarts,
      workerdStarts: this.#workerdStarts,
      apps: this.#served.size,
      loadedWorkers: this.#loaded,
      loadChecks: this.#loadChecks,
    };
  }

  /** Per-app request counts, status classes, latency and in-flight requests, from every running workerd. */
  async requestStats(): Promise<Map<string, DispatcherStats['apps'][string]>> {
    const current = this.#current;
    const gens = [...this.#retiring.keys(), ...(current ? [current] : [])];
    const live = await Promise.all(gens.map((gen) => this.#fetchStats(gen)));
    const latest = live.at(-1);
    if (current && latest && this.#current === current) this.#loaded = latest.loads;
    return this.#stats.merged(gens.map((gen, i) => ({ generation: gen.id, stats: live[i] })));
  }

  /** The latency buckets (upper bounds, ms) `requestStats` counts in. */
  get latencyBucketsMs(): readonly number[] {
    return this.#stats.bucketsMs;
  }

  async #fetchStats(gen: Generation): Promise<DispatcherStats | undefined> {
    if (!gen.proc.running) return undefined;
    try {
      const res = await control<DispatcherStats>(gen.controlSocket, 'GET', '/stats', undefined, 5000);
      return res.status === 200 ? res.body : undefined;
    } catch {
      return undefined;
    }
  }

  #codeOf(id: string): Promise<ReturnType<typeof workerCode> extends Promise<infer T> ? T | undefined : never> {
    const live = this.#code.get(id);
    return live ? workerCode(live) : Promise.resolve(undefined);
  }

  #await(key: string): Promise<ServedApp | undefined> {
    const promise = this.#waiters.add(key, this.#version);
    this.#kick();
    return promise;
  }

  #kick(): void {
    if (this.#stopped) return;
    this.#dirty = true;
    if (this.#loop) return;
    this.#loop = (async () => {
      while (this.#dirty && !this.#stopped) {
        this.#dirty = false;
        await this.#converge();
      }
    })().finally(() => (this.#loop = undefined));
  }

  /** The loader id of a deployment: its fingerprint, and a new one after each failed attempt (workerd caches failures). */
  #idOf(live: LiveApp, tailed: boolean): string {
    const fingerprint = workerFingerprint(live);
    return `${live.app.project}/${live.app.appId}@${live.build.buildId}~${fingerprint}~${this.#attempts.get(fingerprint) ?? 0}${tailed ? '~tailed' : ''}`;
  }

  /** One pass: prepare desired builds, load changed apps, start a generation if assets changed, push the table, settle waiters. */
  async #converge(): Promise<void> {
    const upTo = this.#version;
    const snapshot = new Map(this.#desired);
    const failures = new Map<string, unknown>();
    const next = new Map<string, Served>();
    await Promise.all(
      [...snapshot].map(async ([key, { app }]) => {
        const served = this.#served.get(key);
        try {
          const build = await this.#builds!.prepare(app);
          if (build.assetsDir && ASSETS_BINDING in app.env) {
            throw new BuildLoadError(build.buildId, `the environment variable ${ASSETS_BINDING} is reserved: it is the binding of the build's static assets`);
          }
          const live = { app, build };
          const refused = this.#loadFailures.get(workerFingerprint(live));
          if (refused) throw refused;
          // The tail worker is part of the isolate's code: following an app's logs loads it anew, with tails.
          const tailed = this.#followers.has(key);
          next.set(key, { live, id: this.#idOf(live, tailed), tailed });
        } catch (err) {
          failures.set(key, err);
          const tailed = this.#followers.has(key);
          if (served) next.set(key, { live: served.live, id: this.#idOf(served.live, tailed), tailed });
        }
      }),
    );

    try {
      if (!this.#current?.proc.running) await this.#replaceGeneration(this.#table());
      await this.#checkLoads(next, failures);
      // Applied first, then committed: if workerd does not take it, what is served stays what was served.
      const assignment = this.#assign(next);
      const table = this.#table(next, assignment);
      for (const s of next.values()) this.#code.set(s.id, s.live); // before any request can load them
      const current = this.#current!;
      const assetsChanged = table.assets.length !== current.assets.size || table.assets.some((a) => current.assets.get(a.key) !== assetsSignature(a));
      if (assetsChanged || this.#recycle || !current.proc.running) {
        await this.#replaceGeneration(table);
        this.#recycle = false;
      } else {
        await this.#push(current, table.routes);
      }
      this.#commit(next, assignment);
    } catch (err) {
      this.#log.error('runtime rollout failed', { error: err });
      for (const key of snapshot.keys()) if (!failures.has(key)) failures.set(key, err);
      if (!this.#current?.proc.running) this.#scheduleRestart();
    }
    for (const key of this.#waiters.keys()) {
      this.#waiters.settle(key, upTo, failures.has(key) ? { error: failures.get(key) } : { value: () => this.#servedApp(key) });
    }
    await this.#collect();
  }

  /**
   * Loads each app whose code or environment changed in the running workerd, before any request is routed to
   * it: a build workerd refuses falls back to what the app served (`BuildLoadError`, remembered); a load that
   * failed for another reason is retried on the next pass under a new id.
   */
  async #checkLoads(next: Map<string, Served>, failures: Map<string, unknown>): Promise<void> {
    const changed = [...next].filter(([key, s]) => this.#served.get(key)?.id !== s.id && !this.#checked.has(workerFingerprint(s.live)));
    if (changed.length === 0) return;
    for (const [, s] of changed) this.#code.set(s.id, s.live);
    const timeoutMs = this.#o.startTimeoutMs ?? 30_000;
    const answers = await this.#probeAll(changed, timeoutMs);
    // A build that never finishes loading stalls the whole checker, and every check under way with it: those
    // are checked again one by one, each on a fresh checker, so only that build is refused.
    if (changed.length > 1) {
      for (const [i, entry] of changed.entries()) if (answers[i]!.hung) answers[i] = (await this.#probeAll([entry], timeoutMs))[0]!;
    }
    changed.forEach(([key, s], i) => this.#settleCheck(key, s, answers[i]!, next, failures));
  }

  /**
   * Loads `entries` in the checker, a workerd of its own kept between deploys: a build that loops at its top
   * level would otherwise block the one serving every app. It is replaced after such a build (its thread is
   * stuck), and before its isolates add up.
   */
  async #probeAll(entries: ReadonlyArray<readonly [string, Served]>, timeoutMs: number): Promise<LoadCheck[]> {
    if (this.#checker && !this.#checker.proc.running) await this.#stopChecker(); // it crashed: its directory goes too
    const checker = this.#checker ?? (this.#checker = await this.#startChecker());
    const answers = await Promise.all(entries.map(([key, s]) => this.#probe(checker, key, s, timeoutMs)));
    this.#checks += entries.length;
    this.#loadChecks += entries.length;
    if (answers.some((a) => a.hung) || this.#checks >= CHECKS_PER_CHECKER) await this.#stopChecker();
    return answers;
  }

  async #probe(checker: Generation, key: string, s: Served, timeoutMs: number): Promise<LoadCheck> {
    try {
      const res = await control<{ loaded: boolean; error?: string }>(checker.controlSocket, 'POST', '/probe', { key, app: this.#routed(s) }, timeoutMs);
      return res.status === 200 ? { ...res.body, hung: false } : { loaded: false, error: `the dispatcher answered ${res.status}`, hung: false };
    } catch {
      // That workerd answered its control socket before: the build is what does not finish loading.
      return { loaded: false, error: `Failed to start Worker: it did not load within ${timeoutMs} ms`, hung: true };
    }
  }

  #startChecker(): Promise<Generation> {
    const id = ++this.#generations;
    this.#workerdStarts += 1;
    this.#checks = 0;
    return startGeneration(this.#ctx!, id, join(this.#runDir, `check${id}`), [], { hosts: {}, apps: {}, retryAfter: '1' });
  }

  async #stopChecker(): Promise<void> {
    const checker = this.#checker;
    this.#checker = undefined;
    if (!checker) return;
    checker.proc.kill(); // nothing of its own to finish
    await stopGeneration(checker);
  }

  /** Acts on a load check: a build workerd refuses falls back to what the app served (remembered); another failure is retried later. */
  #settleCheck(key: string, s: Served, answer: LoadCheck, next: Map<string, Served>, failures: Map<string, unknown>): void {
    const fingerprint = workerFingerprint(s.live);
    if (answer.loaded) {
      this.#checked.add(fingerprint);
      if (this.#checked.size > 10_000) this.#checked.delete(this.#checked.values().next().value as string);
      return;
    }
    const previous = this.#served.get(key);
    if (previous) next.set(key, previous);
    else next.delete(key);
    this.#code.delete(s.id);
    const error = answer.error ?? 'unknown';
    if (LOAD_FAILURE.test(error)) {
      const refusal = new BuildLoadError(s.live.build.buildId, error.replace(/^(Error: )?Failed to start Worker:\s*/, '').slice(0, 4096));
      failures.set(key, refusal);
      this.#loadFailures.set(fingerprint, refusal);
      if (this.#loadFailures.size > 1000) this.#loadFailures.delete(this.#loadFailures.keys().next().value as string);
    } else {
      this.#attempts.set(fingerprint, (this.#attempts.get(fingerprint) ?? 0) + 1);
      failures.set(key, new Error(`loading ${key} failed: ${error}`));
    }
  }

  /** Who gets each host name if `next` is served (a contested name stays with the app that had it). */
  #assign(next: ReadonlyMap<string, Served>): ReadonlyMap<string, string> {
    const claims = [...next].map(([key, { live }]) => ({ key, project: live.app.project, appId: live.app.appId, hostnames: live.app.hostnames }));
    return assignHosts(claims, this.#o.baseDomain, this.#assignment);
  }

  /** Makes `next` what is served, once workerd serves it. */
  #commit(next: ReadonlyMap<string, Served>, assignment: ReadonlyMap<string, string>): void {
    this.#served.clear();
    for (const [key, s] of next) this.#served.set(key, s);
    this.#assignment = assignment;
  }

  /** The static assets of the served apps, each with the binding prefix the table names. */
  #servedAssets(served: ReadonlyMap<string, Served>): GenerationAssets[] {
    return [...served]
      .filter(([, s]) => s.live.build.assetsDir !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, s], i) => ({ binding: `A${i}`, key, directory: s.live.build.assetsDir!, config: s.live.build.assetConfig }));
  }

  #routed(s: Served, assets?: string): RoutedApp {
    const limit = s.live.app.maxConcurrentRequests ?? this.#o.defaultMaxConcurrentRequests ?? 100;
    return {
      id: s.id,
      build: s.live.build.buildId,
      limit,
      depth: Math.ceil(limit * (this.#o.queue?.depthFactor ?? 1)),
      ...(assets ? { assets } : {}),
      ...(s.tailed ? { tailed: true } : {}),
    };
  }

  /** The routing table of `served` (default: what is served now) and the assets services it needs. */
  #table(served: ReadonlyMap<string, Served> = this.#served, assignment = this.#assignment): { routes: RoutingTable; assets: GenerationAssets[] } {
    const assets = this.#servedAssets(served);
    const bindings = new Map(assets.map((a) => [a.key, a.binding]));
    const apps: Record<string, RoutedApp> = {};
    for (const [key, s] of served) apps[key] = this.#routed(s, bindings.get(key));
    return { routes: { hosts: Object.fromEntries(assignment), apps, retryAfter: String(this.#o.retryAfterSeconds ?? 1) }, assets };
  }

  async #push(gen: Generation, routes: RoutingTable): Promise<void> {
    const res = await control(gen.controlSocket, 'PUT', '/routes', routes, 10_000);
    if (res.status !== 204) throw new Error(`the dispatcher refused the routing table (${res.status})`);
  }

  /** Replaces the serving workerd, blue/green: the new one starts, the entry point moves to it, the old one drains. */
  async #replaceGeneration(table: { routes: RoutingTable; assets: GenerationAssets[] }): Promise<void> {
    this.#switchTo(await this.#startGeneration(table.assets, table.routes));
  }

  /**
   * Stops `old` once the requests it has are done (at most the drain timeout). Its final counts join the totals
   * as it leaves the list `requestStats` reads, so nothing is counted twice.
   */
  #retire(old: Generation): void {
    old.retiring = true;
    const drainMs = this.#o.drainTimeoutMs ?? 30_000;
    let final: DispatcherStats | undefined;
    const done = (async () => {
      await drained(old, drainMs);
      final = await this.#fetchStats(old);
      await stopGeneration(old);
    })()
      .catch((err: unknown) => this.#log.error('retiring workerd failed', { generation: old.id, error: err }))
      .finally(() => {
        this.#stats.retire(old.id, final); // with its last read if it could not be read now (it crashed)
        this.#retiring.delete(old);
        this.#kick(); // a pass with nothing to roll out: collects the builds only the old generation used
      });
    this.#retiring.set(old, done);
  }

  #startGeneration(assets: readonly GenerationAssets[], table: RoutingTable): Promise<Generation> {
    const id = ++this.#generations;
    this.#workerdStarts += 1;
    return startGeneration(this.#ctx!, id, join(this.#runDir, `g${id}`), assets, table);
  }

  /** Routes to `gen` from now on, then retires the previous generation once its requests are done. */
  #switchTo(gen: Generation): void {
    const old = this.#current;
    this.#current = gen;
    this.#healthFailures = 0;
    this.#loaded = 0;
    void gen.proc.exited.then(({ code, signal }) => {
      if (gen.retiring || this.#stopped) return;
      this.#log.error('workerd exited unexpectedly; restarting', { pid: gen.proc.pid, code, signal, output: gen.proc.output().slice(-2000) });
      if (this.#current === gen) this.#scheduleRestart();
    });
    this.#entry.setUpstream(gen.upstream);
    this.#log.info('runtime generation serving', { generation: gen.id, pid: gen.proc.pid, apps: this.#served.size });
    if (old && old !== gen && !old.retiring) this.#retire(old);
  }

  #scheduleRestart(): void {
    if (this.#stopped || this.#restartTimer) return;
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(delay * 2, this.#o.restartBackoff?.maxMs ?? 10_000);
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      this.#restarts += 1;
      this.#kick();
    }, delay);
    this.#restartTimer.unref();
  }

  async #checkHealth(): Promise<void> {
    const gen = this.#current;
    if (!gen || this.#stopped || this.#loop) return;
    if (gen.proc.running && Date.now() - gen.startedAt > 60_000) this.#backoffMs = this.#o.restartBackoff?.initialMs ?? 100;
    const answer = gen.proc.running ? await health(gen, this.#o.healthCheck?.timeoutMs ?? 2000) : undefined;
    if (this.#current !== gen || gen.retiring) return;
    if (answer) {
      this.#healthFailures = 0;
      this.#loaded = answer.loads;
      if (answer.loads > (this.#o.maxLoadedWorkers ?? 2000)) {
        this.#log.info('workerd holds too many isolates; starting a fresh one (apps load again on demand)', { loaded: answer.loads });
        this.#recycle = true;
        this.#kick();
      }
      return;
    }
    if (!gen.proc.running) return; // the exit handler restarts it
    this.#healthFailures += 1;
    if (this.#healthFailures >= (this.#o.healthCheck?.failures ?? 3)) {
      this.#log.error('workerd stopped answering health checks; restarting', { pid: gen.proc.pid, failures: this.#healthFailures });
      gen.proc.kill();
    }
  }

  #servedApp(key: string): ServedApp | undefined {
    const s = this.#served.get(key);
    if (!s) return undefined;
    const { project, appId } = s.live.app;
    const host = this.defaultHost(project, appId);
    const port = this.#o.publicPort === undefined ? '' : `:${this.#o.publicPort}`;
    return {
      project,
      appId,
      buildId: s.live.build.buildId,
      hosts: hostsOf(key, this.#assignment, host),
      url: `${this.#o.publicScheme ?? 'https'}://${host}${port}`,
      maxConcurrentRequests: s.live.app.maxConcurrentRequests ?? this.#o.defaultMaxConcurrentRequests ?? 100,
    };
  }

  /** Deletes unpacked builds and loader ids that neither the desired state nor what is served uses. Runs inside the loop, so never beside a `prepare`. */
  async #collect(): Promise<void> {
    const keep = new Set<string>([...this.#desired.values()].map(({ app }) => buildKey(app)));
    const ids = new Set<string>();
    for (const s of this.#served.values()) {
      keep.add(buildKey(s.live.app));
      ids.add(s.id);
    }
    // A retiring workerd may still load an app's previous isolate: its code stays until that workerd is gone.
    if (this.#retiring.size === 0) for (const id of this.#code.keys()) if (!ids.has(id)) this.#code.delete(id);
    for (const live of this.#code.values()) keep.add(buildKey(live.app));
    await this.#builds?.retain(keep).catch((err: unknown) => this.#log.warn('removing unused builds failed', { error: err }));
  }
}
