import type { ShardContext } from './shard.ts';
import type { RuntimeEngineOptions } from './engine-options.ts';
import type { ServingOptions } from './served.ts';

/** The engine's options with every default applied: one place says what an unset option means. */
export interface EngineSettings {
  readonly shards: number;
  readonly cpuLimitMs: number;
  readonly startupLimitMs: number;
  /** Each project's CPU time for cold starts per minute on the replica (0: no bound), and how long a load waits for it. */
  readonly startupBudget: { readonly cpuMsPerMinute: number; readonly waitMs: number };
  /** The window over which a shard's saturated thread is laid on the app holding it (`sustained-cpu.ts`); 0: never. */
  readonly sustainedWindowMs: number;
  /** How often a shard's watchdog looks: a fifth of the CPU bound unless set, at least 10 ms. */
  readonly intervalMs: number;
  readonly isolateHeapMb: number;
  /** Whether a stopped shard's thread is asked which app it was running (`running-app.ts`). */
  readonly askTheThread: boolean;
  /** 0: no bound. */
  readonly shardMemoryBytes: number;
  readonly quarantine: { readonly initialMs: number; readonly maxMs: number };
  readonly probationMs: number;
  /** How long a request waits for its project's probation turn, or its shard's restart, before its 503. */
  readonly probationWaitMs: number;
  /** How long a request waits for a probation turn before the project holding it has its requests there cut short. */
  readonly probationTurnMs: number;
  readonly logLingerMs: number;
  readonly startTimeoutMs: number;
  readonly drainTimeoutMs: number;
  readonly restartBackoff: { readonly initialMs: number; readonly maxMs: number };
  readonly maxLoadedWorkers: number;
  /** A shard's fresh start past this much resident memory: three quarters of the bound unless set (0: never). */
  readonly memoryRecycle: { readonly bytes: number; readonly minAgeMs: number };
  /** The `Retry-After` value of the runtime's own 503 answers. */
  readonly retryAfter: string;
  readonly listen: { readonly port: number; readonly host: string };
  readonly serving: ServingOptions;
}

export function engineSettings(o: RuntimeEngineOptions): EngineSettings {
  const cpuLimitMs = o.limits?.cpuLimitMs ?? 500;
  return {
    shards: Math.max(1, o.shards ?? 1),
    cpuLimitMs,
    startupLimitMs: o.limits?.startupLimitMs ?? 1000,
    startupBudget: { cpuMsPerMinute: o.limits?.startupBudgetMsPerMinute ?? 3000, waitMs: o.limits?.startupBudgetWaitMs ?? 5000 },
    sustainedWindowMs: o.limits?.sustainedWindowMs ?? 5000,
    intervalMs: o.limits?.intervalMs ?? Math.max(10, Math.round(cpuLimitMs / 5)),
    isolateHeapMb: o.limits?.isolateHeapMb ?? 128,
    askTheThread: o.limits?.askTheThread ?? true,
    shardMemoryBytes: (o.limits?.shardMemoryMb ?? 0) * 1048576,
    quarantine: { initialMs: o.quarantine?.initialMs ?? 60_000, maxMs: o.quarantine?.maxMs ?? 3_600_000 },
    probationMs: o.quarantine?.probationMs ?? 60_000,
    probationWaitMs: o.quarantine?.probationWaitMs ?? 5_000,
    probationTurnMs: o.quarantine?.probationTurnMs ?? 2_000,
    logLingerMs: o.logLingerMs ?? 300_000,
    startTimeoutMs: o.startTimeoutMs ?? 30_000,
    drainTimeoutMs: o.drainTimeoutMs ?? 30_000,
    restartBackoff: { initialMs: o.restartBackoff?.initialMs ?? 100, maxMs: o.restartBackoff?.maxMs ?? 10_000 },
    maxLoadedWorkers: o.maxLoadedWorkers ?? 2000,
    memoryRecycle: {
      bytes: o.limits?.shardRecycleMb !== undefined ? o.limits.shardRecycleMb * 1048576 : Math.floor(((o.limits?.shardMemoryMb ?? 0) * 1048576 * 3) / 4),
      minAgeMs: o.limits?.recycleMinAgeMs ?? 30_000,
    },
    retryAfter: String(o.retryAfterSeconds ?? 1),
    listen: { port: o.listen?.port ?? 0, host: o.listen?.host ?? '127.0.0.1' },
    serving: {
      baseDomain: o.baseDomain,
      ...(o.publicScheme !== undefined ? { publicScheme: o.publicScheme } : {}),
      ...(o.publicPort !== undefined ? { publicPort: o.publicPort } : {}),
      ...(o.defaultMaxConcurrentRequests !== undefined ? { defaultMaxConcurrentRequests: o.defaultMaxConcurrentRequests } : {}),
      ...(o.queue?.depthFactor !== undefined ? { queueDepthFactor: o.queue.depthFactor } : {}),
    },
  };
}

/** What every shard is run with, of the settings: drain, restart backoff, watchdog bounds, isolates per workerd. */
export function shardSettings(s: EngineSettings): Pick<ShardContext, 'drainTimeoutMs' | 'restartBackoff' | 'watchdog' | 'maxLoadedWorkers' | 'memoryRecycle'> {
  return {
    drainTimeoutMs: s.drainTimeoutMs,
    restartBackoff: s.restartBackoff,
    watchdog: { intervalMs: s.intervalMs, cpuLimitMs: s.cpuLimitMs, startupLimitMs: s.startupLimitMs, memoryLimitBytes: s.shardMemoryBytes, sustainedWindowMs: s.sustainedWindowMs },
    maxLoadedWorkers: s.maxLoadedWorkers,
    memoryRecycle: s.memoryRecycle,
  };
}
