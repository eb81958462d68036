import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { control } from './control-client.ts';
import { CONTROL_SOCKET, ENTRY_SOCKET, renderDispatcherConfig, type GenerationAssets } from './dispatcher/config.ts';
import type { RoutingTable } from './dispatcher/routing-table.ts';
import type { DispatcherStats } from './request-stats.ts';
import type { RuntimeLogger } from '../../src/runtime-contract/log.ts';
import { UpstreamPool, type Upstream } from './upstream.ts';
import { WorkerdProcess } from './workerd-process.ts';
import { perfMapFlags } from './running-app.ts';
import { GC_TRACE_FLAGS } from './isolate-memory.ts';

/**
 * One workerd process: the dispatcher with its Worker Loader (apps' isolates are loaded on demand, so code and
 * environment change without a new process) and the assets services of the apps that have static assets,
 * which workerd fixes at start. A generation is replaced when those change, when workerd crashed, or to unload
 * isolates: the entry point moves to the new one's socket (blue/green) and the old one finishes what it has.
 */
export interface Generation {
  readonly id: number;
  /** The shard it serves (the checker of new builds: -1). */
  readonly shard: number;
  readonly dir: string;
  readonly proc: WorkerdProcess;
  readonly controlSocket: string;
  /** The dispatcher's socket, as the entry point reaches it, with the requests in flight there. */
  readonly upstream: Upstream;
  /** App key → the assets it was started with (`assetsSignature`), and their binding prefix. */
  readonly assets: ReadonlyMap<string, string>;
  readonly bindings: ReadonlyMap<string, string>;
  readonly startedAt: number;
  retiring: boolean;
  /** Why the runtime killed it (its watchdog), so its exit is not taken for a crash. */
  killedFor?: string;
}

export interface GenerationContext {
  readonly binary: string;
  readonly startTimeoutMs: number;
  readonly log: RuntimeLogger;
  /** The runtime process's Unix socket (code and logs). */
  readonly runtimeSocket: string;
  /** The key rollout affinity cookies are signed with, hex (`RuntimeEngineOptions.affinityKey`, hashed). */
  readonly affinityKey: string;
  /** V8 flags of every isolate (the heap bound). */
  readonly v8Flags: readonly string[];
  /**
   * workerd writes V8's perf map into its directory, so a stuck thread can be asked what it runs (`running-app.ts`),
   * and traces its garbage collections, so a shard past its memory bound can say which isolate holds it (`isolate-memory.ts`).
   */
  readonly perfMaps?: boolean;
  /** Private addresses apps may reach (CIDRs), asked before each workerd starts (`RuntimeEngineOptions.outboundAllow`). */
  readonly outboundAllow?: () => Promise<readonly string[]>;
  /** Addresses apps may never reach (CIDRs: `RuntimeEngineOptions.outboundDeny`). */
  readonly outboundDeny?: readonly string[];
}

/** What identifies an app's assets service: the build's directory and its config. */
export function assetsSignature(assets: Pick<GenerationAssets, 'directory' | 'config'>): string {
  return JSON.stringify([assets.directory, assets.config]);
}

/** Whether `gen` was started with other static assets than `assets` (workerd fixes them at start). */
export function assetsChanged(gen: Generation, assets: readonly GenerationAssets[]): boolean {
  return assets.length !== gen.assets.size || assets.some((a) => gen.assets.get(a.key) !== assetsSignature(a));
}

/** Writes the config into a fresh `dir` and starts workerd on it; resolves once it listens on the entry and control sockets. */
export async function startGeneration(ctx: GenerationContext, id: number, shard: number, dir: string, assets: readonly GenerationAssets[], table: RoutingTable): Promise<Generation> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const controlSocket = join(dir, 'control.sock');
  const entrySocket = join(dir, 'entry.sock');
  const config = renderDispatcherConfig({
    assets,
    table,
    entrySocket: `unix:${entrySocket}`,
    controlSocket: `unix:${controlSocket}`,
    runtimeService: `unix:${ctx.runtimeSocket}`,
    generation: id,
    affinityKey: ctx.affinityKey,
    v8Flags: ctx.perfMaps ? [...ctx.v8Flags, ...perfMapFlags(dir), ...GC_TRACE_FLAGS] : ctx.v8Flags,
    outboundAllow: (await ctx.outboundAllow?.()) ?? [],
    outboundDeny: ctx.outboundDeny ?? [],
  });
  const configPath = join(dir, 'config.capnp');
  await writeFile(configPath, config.text);
  let proc: WorkerdProcess | undefined;
  try {
    proc = await WorkerdProcess.start({
      binary: ctx.binary,
      configPath,
      experimental: config.experimental,
      sockets: [ENTRY_SOCKET, CONTROL_SOCKET],
      startTimeoutMs: ctx.startTimeoutMs,
      log: ctx.log,
      gcTrace: ctx.perfMaps,
    });
    await writeFile(join(dir, 'pid'), String(proc.pid));
    const pool = new UpstreamPool();
    return {
      id,
      shard,
      dir,
      proc,
      controlSocket,
      upstream: { socket: pool.socket(entrySocket), pool },
      assets: new Map(assets.map((a) => [a.key, assetsSignature(a)])),
      bindings: new Map(assets.map((a) => [a.key, a.binding])),
      startedAt: Date.now(),
      retiring: false,
    };
  } catch (err) {
    proc?.kill(); // it started, but what it needs next failed
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Kills workerd processes a previous run of the engine left behind (it crashed without stopping them):
 * each generation directory holds its workerd's pid, killed only if that process still runs our config.
 */
export async function killLeftovers(runDir: string): Promise<void> {
  const dirs = await readdir(runDir).catch(() => [] as string[]);
  for (const name of dirs) {
    const pid = Number(await readFile(join(runDir, name, 'pid'), 'utf8').catch(() => ''));
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(join(runDir, name, 'config.capnp'))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/** Resolves once the requests the entry point sent to `gen` are done, its workerd has exited, or `timeoutMs` passed. */
export async function drained(gen: Generation, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([gen.upstream.pool.idle(), gen.proc.exited, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
}

/** Stops a generation: its connections close, SIGTERM, SIGKILL after `graceMs`; then its directory goes. */
export async function stopGeneration(gen: Generation, graceMs = 5000): Promise<void> {
  gen.retiring = true;
  gen.upstream.pool.destroy();
  await gen.proc.stop(graceMs);
  await rm(gen.dir, { recursive: true, force: true });
}

/**
 * The dispatcher's health: the isolates it has loaded, or undefined for an answer that is not healthy.
 * Rejects when it does not answer within `timeoutMs` or cannot be reached.
 */
export async function health(gen: Generation, timeoutMs: number): Promise<number | undefined> {
  const res = await control<string>(gen.controlSocket, 'GET', '/health', undefined, timeoutMs);
  const match = res.status === 200 ? /^ok (\d+)$/.exec(res.body) : null;
  return match ? Number(match[1]) : undefined;
}

/**
 * Has the dispatcher drop the request counts of apps removed from the replica (`keys`). Best effort: one that has
 * exited has none to drop, and one that does not answer keeps them till it retires (its next read shows them again).
 */
export async function forgetCounts(gen: Generation, keys: readonly string[]): Promise<void> {
  if (!gen.proc.running) return;
  await control(gen.controlSocket, 'POST', '/forget', { keys }, 5000).catch(() => undefined);
}

/** The dispatcher's per-app request counts, or undefined when it has exited or does not answer. */
export async function dispatcherStats(gen: Generation): Promise<DispatcherStats | undefined> {
  if (!gen.proc.running) return undefined;
  try {
    const res = await control<DispatcherStats>(gen.controlSocket, 'GET', '/stats', undefined, 5000);
    return res.status === 200 ? res.body : undefined;
  } catch {
    return undefined;
  }
}
