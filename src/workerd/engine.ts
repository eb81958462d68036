import { mkdir, readdir, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { AppLogs, type AppLogListener } from './app-logs.ts';
import { DEFAULT_ARTIFACT_LIMITS, type ArtifactLimits } from './artifact.ts';
import { BuildStore, buildKey } from './build-store.ts';
import { ConcurrencyLimiter } from './concurrency-limiter.ts';
import { BuildLoadError } from './errors.ts';
import { healthy, killLeftovers, probe, retire, sameWorkers, startGeneration, workerFingerprint, type Generation, type GenerationContext, type LiveApp } from './generation.ts';
import { assignHosts, defaultHost, hostsOf } from './hosts.ts';
import { silentRuntimeLogger, type RuntimeLogger } from './log.ts';
import type { AppDeployment, ArtifactSource, ServedApp } from './ports.ts';
import { startLogSink } from './log-sink.ts';
import { RuntimeRouter, type RouterOptions } from './router.ts';
import type { Route } from './upstream.ts';
import { Waiters } from './waiters.ts';
import { ASSETS_BINDING } from './workerd-config.ts';
import { resolveWorkerdBinary, workerdCompatibilityDate } from './workerd-process.ts';

export interface RuntimeEngineOptions {
  readonly artifacts: ArtifactSource;
  /** A writable directory of its own: unpacked builds, workerd configs and sockets. Keep the path short (Unix socket paths are limited to ~100 bytes). */
  readonly dataDir: string;
  /** Default hosts are `<appId>.<project>.<baseDomain>`. */
  readonly baseDomain: string;
  /** Scheme and port of `ServedApp.url` (default `https`, no port). */
  readonly publicScheme?: 'http' | 'https';
  readonly publicPort?: number;
  /** Default: the installed `@cloudflare/workerd-*` package's binary. */
  readonly workerdBinary?: string;
  /** For apps that set none (default 100). */
  readonly defaultMaxConcurrentRequests?: number;
  /** Requests that may wait for a slot, as a multiple of the app's limit (default 1), and for how long (default 10 s). */
  readonly queue?: { readonly depthFactor?: number; readonly timeoutMs?: number };
  /** How long workerd may take to load every app (default 30 s). */
  readonly startTimeoutMs?: number;
  /** How long a replaced workerd may keep finishing in-flight requests (default 30 s). */
  readonly drainTimeoutMs?: number;
  /** How long an app's logs keep being collected after its last follower left (default 5 minutes). */
  readonly logLingerMs?: number;
  readonly healthCheck?: { readonly intervalMs?: number; readonly timeoutMs?: number; readonly failures?: number };
  /** Delay before restarting a crashed workerd: doubles from `initialMs` to `maxMs`; reset after a minute up. */
  readonly restartBackoff?: { readonly initialMs?: number; readonly maxMs?: number };
  readonly artifactLimits?: Partial<ArtifactLimits>;
  readonly router?: Omit<RouterOptions, 'log'>;
  readonly log?: RuntimeLogger;
}

export interface RuntimeStatus {
  /** workerd runs and answered its last health check. */
  readonly ready: boolean;
  readonly generation: number;
  readonly pid: number;
  /** Crash restarts since start. */
  readonly restarts: number;
  /** workerd processes launched since start: generations, failed attempts and single-app load checks. */
  readonly workerdStarts: number;
  readonly apps: number;
}

const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const MAX_SOCKET_DIR = 90;

/**
 * The runtime engine: serves runtime apps on workerd behind one HTTP entry point (`router`).
 *
 * The controller declares what each app serves (`deploy`, `remove`); the engine converges on it. workerd
 * has no hot reload, so a change of code or environment is rolled out blue/green: a new workerd starts
 * with the new config on new sockets, the router switches once every app listens, and the old process
 * finishes its in-flight requests before it is stopped. Deploys that arrive during a rollout are
 * coalesced into the next one. A build that cannot load is isolated by loading the changed apps alone,
 * and refused (`BuildLoadError`) while the app keeps serving its previous build. A workerd that crashes
 * or stops answering health checks is restarted with backoff, with no action from anyone.
 */
export class RuntimeEngine {
  readonly router: RuntimeRouter;
  /** What the apps log (console lines, exceptions, each request's outcome), collected by workerd's tail worker. */
  readonly logs = new AppLogs();
  readonly #o: RuntimeEngineOptions;
  readonly #log: RuntimeLogger;
  readonly #desired = new Map<string, { app: AppDeployment; version: number }>();
  readonly #waiters = new Waiters<ServedApp | undefined>();
  readonly #limiters = new Map<string, ConcurrencyLimiter>();
  readonly #retiring = new Map<Generation, Promise<void>>();
  /** Worker fingerprint → why workerd refused it: loading is deterministic, so it is not tried again. */
  readonly #loadFailures = new Map<string, BuildLoadError>();
  #assignment: ReadonlyMap<string, string> = new Map();
  #ctx: GenerationContext | undefined;
  #builds: BuildStore | undefined;
  #current: Generation | undefined;
  #version = 0;
  #generations = 0;
  #dirty = false;
  #loop: Promise<void> | undefined;
  #stopped = false;
  #restarts = 0;
  #workerdStarts = 0;
  #backoffMs: number;
  #restartTimer: NodeJS.Timeout | undefined;
  #healthTimer: NodeJS.Timeout | undefined;
  #healthFailures = 0;
  #logSink: Server | undefined;
  /** App key → how many follow its logs; an app is tailed while it has followers and for a while after. */
  readonly #followers = new Map<string, number>();
  readonly #lingers = new Map<string, NodeJS.Timeout>();

  constructor(options: RuntimeEngineOptions) {
    this.#o = options;
    this.#log = options.log ?? silentRuntimeLogger;
    this.#backoffMs = options.restartBackoff?.initialMs ?? 100;
    this.router = new RuntimeRouter({ ...options.router, log: this.#log });
  }

  get #runDir(): string {
    return join(this.#o.dataDir, 'run');
  }

  /** Prepares the data directory and starts workerd (with no apps yet). */
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
      limits: { ...DEFAULT_ARTIFACT_LIMITS, ...this.#o.artifactLimits },
      maxCompatibilityDate,
    });
    const logSink = join(this.#runDir, 'logs.sock');
    this.#logSink = await startLogSink(logSink, this.logs);
    this.#ctx = { binary, startTimeoutMs: this.#o.startTimeoutMs ?? 30_000, log: this.#log, logSink };
    this.#switchTo(await this.#startGeneration(new Map()));
    const interval = this.#o.healthCheck?.intervalMs ?? 2000;
    this.#healthTimer = setInterval(() => void this.#checkHealth(), interval);
    this.#healthTimer.unref();
    this.#log.info('runtime engine started', { workerd: binary, maxCompatibilityDate, pid: this.#current?.proc.pid });
  }

  /** Stops workerd (every generation) and the router's listener. Pending deploys are rejected. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#lingers.values()) clearTimeout(timer);
    clearInterval(this.#healthTimer);
    clearTimeout(this.#restartTimer);
    await this.#loop?.catch(() => {});
    this.#waiters.rejectAll(new Error('the runtime engine stopped'));
    const gens = [...this.#retiring.keys(), ...(this.#current ? [this.#current] : [])];
    await Promise.all(
      gens.map(async (gen) => {
        gen.retiring = true;
        await gen.proc.stop();
        gen.pool.destroy();
        await rm(gen.dir, { recursive: true, force: true });
      }),
    );
    if (this.router.server.listening) await this.router.close();
    await new Promise((resolve) => (this.#logSink ? this.#logSink.close(resolve) : resolve(undefined)));
  }

  /** The host an app is always served on. */
  defaultHost(project: string, appId: string): string {
    return defaultHost(project, appId, this.#o.baseDomain);
  }

  /**
   * Declares what an app serves, replacing any earlier deployment of it. Resolves once the router sends
   * the app's requests to `app.buildId` with `app.env`; rejects with `ArtifactError` (invalid artifact),
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
   * follower attaches the tail worker (the app's workers are rolled out again) and the promise resolves once
   * requests report to it; after the last one leaves, collection goes on for `logLingerMs`, so `follow=false`
   * readers and reconnecting followers still find the recent entries. Resolves with the unsubscribe function.
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
      if (remaining > 0) {
        this.#followers.set(key, remaining);
        return;
      }
      const timer = setTimeout(() => {
        this.#lingers.delete(key);
        if ((this.#followers.get(key) ?? 0) > 0) return;
        this.#followers.delete(key);
        if (this.#desired.has(key)) this.#kick();
      }, this.#o.logLingerMs ?? 300_000);
      timer.unref();
      this.#lingers.set(key, timer);
      this.#followers.set(key, 0);
    };
  }

  /** What the runtime serves for an app now, if anything. */
  served(project: string, appId: string): ServedApp | undefined {
    return this.#servedApp(`${project}/${appId}`);
  }

  /** Every served app. */
  list(): ServedApp[] {
    return [...(this.#current?.apps.keys() ?? [])].sort().flatMap((key) => this.#servedApp(key) ?? []);
  }

  status(): RuntimeStatus {
    const gen = this.#current;
    return {
      ready: !!gen && gen.proc.running && this.#healthFailures === 0,
      generation: gen?.id ?? 0,
      pid: gen?.proc.pid ?? 0,
      restarts: this.#restarts,
      workerdStarts: this.#workerdStarts,
      apps: gen?.apps.size ?? 0,
    };
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

  /** One pass: prepare desired builds, roll out a new generation if workers changed, re-route, settle waiters. */
  async #converge(): Promise<void> {
    const upTo = this.#version;
    const snapshot = new Map(this.#desired);
    const failures = new Map<string, unknown>();
    const next = new Map<string, LiveApp>();
    const previous = this.#current?.apps ?? new Map<string, LiveApp>();
    await Promise.all(
      [...snapshot].map(async ([key, { app }]) => {
        try {
          const build = await this.#builds!.prepare(app);
          if (build.assetsDir && ASSETS_BINDING in app.env) {
            throw new BuildLoadError(build.buildId, `the environment variable ${ASSETS_BINDING} is reserved: it is the binding of the build's static assets`);
          }
          const live = { app, build, tailed: this.#followers.has(key) };
          const refused = this.#loadFailures.get(workerFingerprint(live));
          if (refused) throw refused;
          next.set(key, live);
        } catch (err) {
          failures.set(key, err);
          const served = previous.get(key);
          if (served) next.set(key, { ...served, tailed: this.#followers.has(key) });
        }
      }),
    );

    try {
      const current = this.#current;
      const gen = !current || !current.proc.running || !sameWorkers(current.apps, next) ? await this.#rollOut(next, failures) : current;
      if (gen === current) {
        gen.apps = next;
        this.#publishRoutes();
      } else {
        this.#switchTo(gen);
      }
    } catch (err) {
      this.#log.error('runtime rollout failed', { error: err });
      for (const key of snapshot.keys()) if (!failures.has(key)) failures.set(key, err);
      if (!this.#current?.proc.running) this.#scheduleRestart();
    }
    for (const key of this.#waiters.keys()) {
      this.#waiters.settle(key, upTo, failures.has(key) ? { error: failures.get(key) } : { value: () => this.#servedApp(key) });
    }
    await this.#collectBuilds();
  }

  /** Starts a generation for `next`; if it fails, finds the apps that cannot load, falls back to their previous build and tries once more. */
  async #rollOut(next: Map<string, LiveApp>, failures: Map<string, unknown>): Promise<Generation> {
    try {
      return await this.#startGeneration(next);
    } catch (err) {
      const previous = this.#current?.apps ?? new Map<string, LiveApp>();
      const changed = [...next].filter(([key, live]) => previous.get(key) === undefined || workerFingerprint(previous.get(key)!) !== workerFingerprint(live));
      this.#log.warn('workerd failed to start; loading changed apps alone', { error: err, changed: changed.map(([key]) => key) });
      let found = false;
      for (const [key, live] of changed) {
        this.#workerdStarts += 1;
        const detail = await probe(this.#ctx!, join(this.#runDir, 'probe'), live);
        if (detail === undefined) continue;
        found = true;
        const error = new BuildLoadError(live.build.buildId, detail);
        failures.set(key, error);
        this.#loadFailures.set(workerFingerprint(live), error);
        if (this.#loadFailures.size > 1000) this.#loadFailures.delete(this.#loadFailures.keys().next().value as string);
        const served = previous.get(key);
        if (served) next.set(key, served);
        else next.delete(key);
      }
      if (!found) throw err;
      const current = this.#current;
      if (current?.proc.running && sameWorkers(current.apps, next)) return current; // only the refused apps changed
      return await this.#startGeneration(next);
    }
  }

  #startGeneration(apps: ReadonlyMap<string, LiveApp>): Promise<Generation> {
    const id = ++this.#generations;
    this.#workerdStarts += 1;
    return startGeneration(this.#ctx!, id, join(this.#runDir, `g${id}`), apps);
  }

  /** Routes to `gen` from now on, then retires the previous generation once its requests are done. */
  #switchTo(gen: Generation): void {
    const old = this.#current;
    this.#current = gen;
    this.#healthFailures = 0;
    void gen.proc.exited.then(({ code, signal }) => {
      if (gen.retiring || this.#stopped) return;
      this.#log.error('workerd exited unexpectedly; restarting', { pid: gen.proc.pid, code, signal, output: gen.proc.output().slice(-2000) });
      if (this.#current === gen) this.#scheduleRestart();
    });
    this.#publishRoutes();
    this.#log.info('runtime generation serving', { generation: gen.id, pid: gen.proc.pid, apps: gen.apps.size });
    if (old) {
      old.retiring = true;
      const done = retire(old, this.#o.drainTimeoutMs ?? 30_000)
        .catch((err: unknown) => this.#log.error('retiring workerd failed', { generation: old.id, error: err }))
        .finally(() => {
          this.#retiring.delete(old);
          this.#kick(); // a pass with nothing to roll out: collects the builds only the old generation used
        });
      this.#retiring.set(old, done);
    }
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
  }

  async #checkHealth(): Promise<void> {
    const gen = this.#current;
    if (!gen || !gen.proc.running || this.#stopped) return;
    const ok = await healthy(gen, this.#o.healthCheck?.timeoutMs ?? 2000);
    if (gen !== this.#current) return;
    if (ok) {
      this.#healthFailures = 0;
      if (Date.now() - gen.startedAt > 60_000) this.#backoffMs = this.#o.restartBackoff?.initialMs ?? 100;
      return;
    }
    this.#healthFailures += 1;
    if (this.#healthFailures >= (this.#o.healthCheck?.failures ?? 3)) {
      this.#log.error('workerd does not answer health checks; killing it', { pid: gen.proc.pid, failures: this.#healthFailures });
      gen.proc.kill(); // the exit handler restarts it
    }
  }

  #publishRoutes(): void {
    const gen = this.#current;
    if (!gen) return;
    const claims = [...gen.apps].map(([key, { app }]) => ({ key, project: app.project, appId: app.appId, hostnames: app.hostnames }));
    this.#assignment = assignHosts(claims, this.#o.baseDomain, this.#assignment);
    const routes = new Map<string, Route>();
    for (const [host, key] of this.#assignment) {
      const live = gen.apps.get(key);
      const socketPath = gen.sockets.get(key);
      if (!live || !socketPath) continue;
      routes.set(host, { key, upstream: { socket: gen.pool.socket(socketPath), pool: gen.pool }, limiter: this.#limiter(key, live.app) });
    }
    for (const key of this.#limiters.keys()) if (!gen.apps.has(key)) this.#limiters.delete(key);
    this.router.setRoutes(routes);
  }

  #limiter(key: string, app: AppDeployment): ConcurrencyLimiter {
    const limit = app.maxConcurrentRequests ?? this.#o.defaultMaxConcurrentRequests ?? 100;
    const depth = Math.ceil(limit * (this.#o.queue?.depthFactor ?? 1));
    let limiter = this.#limiters.get(key);
    if (limiter) limiter.setLimits(limit, depth);
    else this.#limiters.set(key, (limiter = new ConcurrencyLimiter(limit, depth, this.#o.queue?.timeoutMs ?? 10_000)));
    return limiter;
  }

  #servedApp(key: string): ServedApp | undefined {
    const live = this.#current?.apps.get(key);
    if (!live) return undefined;
    const { project, appId } = live.app;
    const host = this.defaultHost(project, appId);
    const port = this.#o.publicPort === undefined ? '' : `:${this.#o.publicPort}`;
    return {
      project,
      appId,
      buildId: live.build.buildId,
      hosts: hostsOf(key, this.#assignment, host),
      url: `${this.#o.publicScheme ?? 'https'}://${host}${port}`,
      maxConcurrentRequests: this.#limiters.get(key)?.limit ?? live.app.maxConcurrentRequests ?? this.#o.defaultMaxConcurrentRequests ?? 100,
    };
  }

  /** Deletes unpacked builds that neither the desired state nor a running generation uses. Runs inside the loop, so never beside a `prepare`. */
  async #collectBuilds(): Promise<void> {
    const keep = new Set<string>([...this.#desired.values()].map(({ app }) => buildKey(app)));
    for (const gen of [...this.#retiring.keys(), ...(this.#current ? [this.#current] : [])]) {
      for (const live of gen.apps.values()) keep.add(buildKey(live.app));
    }
    await this.#builds?.retain(keep).catch((err: unknown) => this.#log.warn('removing unused builds failed', { error: err }));
  }
}
