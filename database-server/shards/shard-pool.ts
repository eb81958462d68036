import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../src/logging/log.ts';
import { SqlError } from '../sql/sql-error.ts';
import type { DatabaseLimits } from '../sql/sql-limits.ts';
import { EngineUnavailableError, type DatabaseEngine, type PipelineOutcome, type PipelineRun } from './engine-port.ts';
import { SHARD_CONFIG_VARIABLE, type ShardCall, type ShardConfig, type ShardReply } from './shard-protocol.ts';
import { shardIndex } from './shard-index.ts';
import { ProjectSlots } from './project-slots.ts';

const SHARD_ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'shard-process.ts');

/** Options of a `ShardPool`. */
export interface ShardPoolOptions {
  shards: number;
  config: ShardConfig;
  /** The JavaScript heap of each shard process (`--max-old-space-size`), in MiB. */
  heapMiB: number;
  /** Pipelines a shard runs at once (they take turns a statement at a time); more wait in this process, shared out by project. */
  pipelinesPerShard: number;
  /** The project a tenant is in (default: a project of its own), by which a shard's slots are shared out. */
  projectOf?: (tenant: string) => string;
  /** A shard that has not answered a ping for this long is killed and started again (a statement stuck past its limit). */
  hangMs: number;
  log: Logger;
  /** How often the watchdog pings each shard; default every second. */
  pingIntervalMs?: number;
}

/** A shard as the admin API shows it. */
export interface ShardState {
  index: number;
  pid: number | undefined;
  /** Times it was started again since cw-db started. */
  restarts: number;
  /** Requests running in it now (at most 1.5 × its slots, with those lent beyond them), and waiting for a slot. */
  running: number;
  waiting: number;
  /** Calls sent to it and not answered yet. */
  calls: number;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** One shard process and the calls waiting for its answers. */
class Shard {
  child: ChildProcess | undefined;
  /** Settles when the current process can take calls. */
  ready: Promise<void> = Promise.resolve();
  readonly pending = new Map<number, Pending>();
  readonly slots: ProjectSlots;
  pingSince: number | undefined;
  /** Restarts in a row (for the back-off); `restartsTotal` counts them all. */
  restarts = 0;
  restartsTotal = 0;
  startedAt = 0;

  readonly index: number;

  constructor(index: number, pipelines: number) {
    this.index = index;
    this.slots = new ProjectSlots(pipelines);
  }
}

/**
 * The `DatabaseEngine` over shard processes: each tenant belongs to one shard (by a hash of its id), whose
 * process runs its SQL. A statement stuck in one shard (a query past its time limit that did not stop, the
 * process out of memory) stalls only that shard's tenants, and the watchdog ends it: the shard is killed,
 * started again, and its tenants' streams and open transactions are lost (their callers get a retryable 503).
 */
export class ShardPool implements DatabaseEngine {
  readonly #options: ShardPoolOptions;
  readonly #shards: Shard[];
  readonly #restartListeners: ((affected: (tenant: string) => boolean) => void)[] = [];
  #nextId = 1;
  #closing = false;
  #watchdog: NodeJS.Timeout | undefined;

  constructor(options: ShardPoolOptions) {
    this.#options = options;
    this.#shards = Array.from({ length: options.shards }, (_, i) => new Shard(i, options.pipelinesPerShard));
  }

  /** Starts every shard process and the watchdog; resolves once all take calls. */
  async start(): Promise<void> {
    await Promise.all(this.#shards.map((shard) => this.#spawn(shard)));
    this.#watchdog = setInterval(() => this.#watch(), this.#options.pingIntervalMs ?? 1000);
    this.#watchdog.unref();
  }

  /** The shard `tenant` belongs to. */
  shardOf(tenant: string): number {
    return shardIndex(tenant, this.#shards.length);
  }

  /** The shard processes: pid and restarts (the admin API's `GET /v1/shards`). */
  state(): ShardState[] {
    return this.#shards.map((s) => ({ index: s.index, pid: s.child?.pid, restarts: s.restartsTotal, running: s.slots.running, waiting: s.slots.waiting, calls: s.pending.size }));
  }

  databasePath(tenant: string): string {
    return path.join(this.#options.config.directory, `${tenant}.db`);
  }

  async open(tenant: string, limits: DatabaseLimits): Promise<void> {
    await this.#call(tenant, { op: 'open', tenant, limits });
  }

  async run(run: PipelineRun, cancel?: AbortSignal): Promise<PipelineOutcome> {
    const shard = this.#shards[this.shardOf(run.tenant)]!;
    // At most so many pipelines in a shard at once; the others wait here, a project's beyond its share behind others'.
    const project = run.project ?? this.#options.projectOf?.(run.tenant) ?? run.tenant;
    const release = await shard.slots.acquire(project, cancel);
    try {
      return (await this.#call(run.tenant, { op: 'run', run: { ...run, project } })) as PipelineOutcome;
    } finally {
      release();
    }
  }

  async closeStream(tenant: string, stream: string): Promise<void> {
    await this.#call(tenant, { op: 'close-stream', tenant, stream });
  }

  async checkpoint(tenant: string, project?: string): Promise<void> {
    await this.#call(tenant, { op: 'checkpoint', tenant, ...(project === undefined ? {} : { project }) });
  }

  async closeTenant(tenant: string): Promise<void> {
    await this.#call(tenant, { op: 'close-tenant', tenant });
  }

  onRestart(listener: (affected: (tenant: string) => boolean) => void): void {
    this.#restartListeners.push(listener);
  }

  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#watchdog);
    await Promise.all(
      this.#shards.map(async (shard) => {
        const child = shard.child;
        if (child === undefined || child.exitCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // Disconnecting tells the shard to close its connections (rolling back) and exit.
        child.disconnect();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  async #call(tenant: string, call: ShardCall): Promise<unknown> {
    return this.#send(this.#shards[this.shardOf(tenant)]!, call);
  }

  async #send(shard: Shard, call: ShardCall): Promise<unknown> {
    await shard.ready;
    const child = shard.child;
    if (child === undefined || !child.connected) throw new EngineUnavailableError('The database engine is restarting; retry shortly', { sent: false });
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      shard.pending.set(id, { resolve, reject });
      try {
        child.send({ id, call }, (error) => {
          if (error && shard.pending.delete(id)) reject(new EngineUnavailableError('The database engine is restarting; retry shortly', { sent: false }));
        });
      } catch (err) {
        // The call could not be serialized (a value nested past the serializer's stack): it was never sent, and no answer
        // will come for it.
        shard.pending.delete(id);
        reject(err as Error);
      }
    });
  }

  #spawn(shard: Shard): Promise<void> {
    const { config, heapMiB, log } = this.#options;
    const child = fork(SHARD_ENTRY, [], {
      // Only what the shard needs: no bucket keys, no tokens, no service account. SQLite's temporary files (a
      // VACUUM's copy) go on the databases' volume, sized for them, not to /tmp.
      env: { [SHARD_CONFIG_VARIABLE]: JSON.stringify(config), SQLITE_TMPDIR: sqliteTempDir(config.directory) },
      // --expose-gc: a closed database's connection is finalized with its statements, which the shard collects at once.
      execArgv: [`--max-old-space-size=${heapMiB}`, '--expose-gc', '--disable-warning=ExperimentalWarning'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    shard.child = child;
    shard.startedAt = Date.now();
    shard.pingSince = undefined;
    shard.ready = new Promise<void>((resolve, reject) => {
      const onExit = (code: number | null, signal: string | null) => reject(new EngineUnavailableError(`A database shard exited while starting (${signal ?? `code ${code}`})`, { sent: false }));
      child.once('exit', onExit);
      child.once('message', (message: ShardReply) => {
        child.off('exit', onExit);
        if ('ready' in message) resolve();
        else reject(new Error('A database shard answered before it was ready'));
      });
    });
    child.on('message', (message: ShardReply) => this.#receive(shard, message));
    child.once('exit', (code, signal) => this.#exited(shard, child, code, signal));
    shard.ready.catch((err: unknown) => log.error('a database shard did not start', { shard: shard.index, err }));
    return shard.ready;
  }

  #receive(shard: Shard, message: ShardReply): void {
    if ('ready' in message) return;
    const pending = shard.pending.get(message.id);
    if (pending === undefined) return;
    shard.pending.delete(message.id);
    if ('error' in message) {
      const { code, message: text } = message.error;
      pending.reject(code === undefined ? new Error(text) : new SqlError(code, text));
    } else {
      pending.resolve(message.value);
    }
  }

  #exited(shard: Shard, child: ChildProcess, code: number | null, signal: string | null): void {
    if (shard.child !== child) return;
    shard.child = undefined;
    // Sent: the shard may have committed some of it before it died.
    const lost = 'The database engine restarted while running this request: what it had not committed was rolled back, and whether its last commit went through is not known';
    for (const pending of shard.pending.values()) pending.reject(new EngineUnavailableError(lost, { sent: true }));
    shard.pending.clear();
    if (this.#closing) return;
    const { log } = this.#options;
    log.error('a database shard exited; starting it again', { shard: shard.index, code, signal });
    // Back off when a shard keeps dying (100 ms doubling to 5 s), reset once one lived a minute.
    if (Date.now() - shard.startedAt > 60_000) shard.restarts = 0;
    const delay = Math.min(5000, 100 * 2 ** shard.restarts++);
    shard.restartsTotal++;
    let started: () => void = () => {};
    shard.ready = new Promise<void>((resolve) => (started = resolve));
    setTimeout(() => {
      if (this.#closing) return started();
      this.#spawn(shard).then(
        () => {
          started();
          for (const listener of this.#restartListeners) listener((tenant) => this.shardOf(tenant) === shard.index);
        },
        () => started(),
      );
    }, delay).unref();
  }

  /** Pings every shard; one that did not answer its last ping within `hangMs` is killed (and started again on exit). */
  #watch(): void {
    const now = Date.now();
    for (const shard of this.#shards) {
      const child = shard.child;
      if (child === undefined || !child.connected) continue;
      if (shard.pingSince !== undefined) {
        if (now - shard.pingSince > this.#options.hangMs) {
          this.#options.log.error('a database shard stopped answering; killing it', { shard: shard.index, silentMs: now - shard.pingSince });
          child.kill('SIGKILL');
        }
        continue;
      }
      shard.pingSince = now;
      this.#send(shard, { op: 'ping' }).then(
        () => {
          if (shard.child === child) shard.pingSince = undefined;
        },
        () => {},
      );
    }
  }
}

/** Where a shard's SQLite writes its temporary files: a directory beside the databases (no tenant id starts with a dot). */
function sqliteTempDir(directory: string): string {
  const dir = path.join(directory, '.sqlite-tmp');
  mkdirSync(dir, { recursive: true });
  return dir;
}
