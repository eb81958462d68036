import type { ConnectionLimits } from '../../src/connection-guard.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BuildStoreOptions } from './build-store.ts';
import type { ArtifactLimits } from '../../src/app-artifacts/artifact.ts';
import type { RuntimeLogger } from '../../src/runtime-contract/log.ts';
import type { ArtifactSource } from './ports.ts';
import type { EntryProxyOptions } from './entry-proxy.ts';
import type { OnDemandOptions } from './on-demand.ts';
import type { ForwardedTrust } from './forwarded-trust.ts';

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
   * Whose `X-Forwarded-For/-Proto/-Host` and `X-Request-Id` to keep (appending to `-For`): the ingress's or load
   * balancer's in front, by address or CIDR range (`true`: every peer's). Others' are replaced, so a client cannot
   * pretend to have come over HTTPS or from another address; so are those of requests over the entry point's own TLS.
   */
  readonly trustForwardedHeaders?: ForwardedTrust;
  /**
   * The secret rollout affinity cookies are signed with (any text; every replica the same, so each honours the
   * others' cookies). Default: one of the engine's own.
   */
  readonly affinityKey?: string;
  /** Connections the entry point's listeners hold at once, in all and per peer address (default: none counted). */
  readonly connections?: ConnectionLimits;
  /** WebSockets each account's projects (`accountOf`) hold open on the replica at once (default 1,000: `websocket-budget.ts`). */
  readonly webSocketsPerProject?: number;
  /** `Retry-After` seconds on 503 answers (default 1). */
  readonly retryAfterSeconds?: number;
  /** Answers a request before it is routed to an app, or returns false (`EntryProxyOptions.answer`). */
  readonly answer?: (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;
  /**
   * A request for a host no deployed app has: the engine's owner may not have deployed the app yet (cw-runtime
   * going through its first list). Answers a promise when it knows of an app at `host` that it is deploying
   * now, resolving `true` once it has acted on it (the request is routed again) or `false` when that took too
   * long (a 503 to retry); `undefined` when it knows of none (404).
   */
  readonly unrouted?: (host: string) => Promise<boolean> | undefined;
  /** The redirect and HSTS of the app a request is routed to (`EntryProxyOptions.https`). */
  readonly https?: EntryProxyOptions['https'];
  /** Default: the installed `@cloudflare/workerd-*` package's binary. */
  readonly workerdBinary?: string;
  /**
   * workerd processes serving apps, each a shard of the projects (`shardOf`): one project's stuck code stalls
   * its shard only, and the shards use that many cores. Default 1 (cw-runtime's default: one per core).
   */
  readonly shards?: number;
  /** For apps that set none (default 100). */
  readonly defaultMaxConcurrentRequests?: number;
  /**
   * The time a request's body has to arrive at the entry point, from its head, before the request is cut (408):
   * a slow client holds its app's slot meanwhile (`request-bodies.ts`). Default 60 s; 0: none (Node's own 300 s
   * for HTTP/1.1).
   */
  readonly requestBodyTimeoutMs?: number;
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
  /**
   * The bounds on apps' code. `cpuLimitMs` (default 500): a shard whose thread does not come back for this long
   * (one request computing without yielding) is killed and restarted, and the app blamed is quarantined;
   * checked every `intervalMs` (default a fifth of it). `startupLimitMs` (default 1000): added to it when a shard is
   * handed an app's code to load, until the shard has computed that much more (evaluating a large bundle, such as
   * Next.js's, takes about half a second of CPU). `isolateHeapMb` (default 128): V8's heap bound of each
   * isolate (an isolate past it ends its shard). `shardMemoryMb` (default 0, none): a shard whose resident
   * memory passes it is ended the same way. `shardRecycleMb` (default three quarters of `shardMemoryMb`): a healthy
   * shard past it is replaced by a fresh workerd, blue/green, losing no request; not sooner than `recycleMinAgeMs`
   * (default 30 s) after its workerd started. `sustainedWindowMs` (default 5000; 0: none): a shard whose thread wanted a
   * core 90 % of such a window, while another project's requests waited, lays the window on the app whose code held
   * more than half of it (`sustained-cpu.ts`): quarantined, its requests cut short. `startupBudgetMsPerMinute`
   * (default 3000; 0: none): the CPU time each project's cold starts may take on the replica's shards a minute, and at
   * once; a load past it waits up to `startupBudgetWaitMs` (default 5000) for the bucket to refill, else its request is
   * answered 503 `StartupBudgetExceeded` (`startup-budget.ts`).
   */
  readonly limits?: {
    readonly cpuLimitMs?: number;
    readonly startupLimitMs?: number;
    readonly startupBudgetMsPerMinute?: number;
    readonly startupBudgetWaitMs?: number;
    readonly sustainedWindowMs?: number;
    readonly intervalMs?: number;
    readonly isolateHeapMb?: number;
    readonly shardMemoryMb?: number;
    readonly shardRecycleMb?: number;
    readonly recycleMinAgeMs?: number;
    /**
     * Ask a stopped shard's thread which app's code it was running (`running-app.ts`) before judging from the
     * requests in flight (default true; false leaves the judging to `blame.ts` alone, as tests of it need).
     */
    readonly askTheThread?: boolean;
  };
  /**
   * How long a quarantine lasts: `initialMs` (default 60 s), doubling with each offence up to `maxMs` (default an
   * hour). `probationMs`: how long suspects take turns (default 60 s). `probationWaitMs`: how long a request waits
   * for its project's turn, or for its shard's restart, before it is answered 503 (default 5 s). `probationTurnMs`:
   * how long a request waits for a turn before the project holding it has its requests cut short (default 2 s).
   */
  readonly quarantine?: {
    readonly initialMs?: number;
    readonly maxMs?: number;
    readonly probationMs?: number;
    readonly probationWaitMs?: number;
    readonly probationTurnMs?: number;
  };
  /**
   * The private addresses apps' `fetch()` and `connect()` may reach besides public ones, as CIDRs of single
   * addresses (the platform's SQL endpoint); asked before each workerd starts, whose network is fixed then.
   * Default: none. Only an address where nothing but that endpoint listens belongs here: workerd allows addresses,
   * not ports.
   */
  readonly outboundAllow?: () => Promise<readonly string[]>;
  /**
   * Addresses apps' `fetch()` and `connect()` may never reach, public ones included, as CIDRs (a cluster's own NAT64
   * prefix), besides the IPv6 forms of private IPv4 addresses every workerd denies (`TRANSLATED_PRIVATE_DENY` in
   * `dispatcher/config.ts`). Default: none more.
   */
  readonly outboundDeny?: readonly string[];
  /**
   * Whom a project's use of the replica's shared bounds counts against (`src/platform/project-account.ts`): the user
   * who created it, so one person's projects share one startup budget, one share of a checker pass and one count of
   * shard stops. Default: every project its own account. Read each time, so a project listed late counts from then.
   */
  readonly accountOf?: (project: string) => string;
  /** Called when an app's quarantine starts or ends on this replica. */
  readonly onQuarantine?: (key: string) => void;
  /**
   * Called when an app served on demand was prepared here, or could not be (`preparationFailure` says why): its
   * report may have changed (a build given with a fallback is reported served only once it loaded here).
   */
  readonly onPrepared?: (key: string) => void;
  /** Delay before restarting a crashed workerd: doubles from `initialMs` to `maxMs`; reset after a minute up. */
  readonly restartBackoff?: { readonly initialMs?: number; readonly maxMs?: number };
  readonly artifactLimits?: Partial<ArtifactLimits>;
  /** How builds are unpacked: at once at most, the room they have, a project's quota (`BuildStore`). */
  readonly builds?: Omit<BuildStoreOptions, 'parse'>;
  /**
   * Serve apps on demand: an app deployed is routed at once, but its build is fetched, checked and loaded on its
   * first request (concurrent ones share it), unless it is kept prepared already or `onDemand.eagerBuilds` says to prepare a new build now; prepared apps are
   * kept in a bounded LRU (`on-demand.ts`). Absent: every app is prepared when deployed.
   */
  readonly onDemand?: OnDemandOptions;
  readonly log?: RuntimeLogger;
}

/** One shard's workerd. */
export interface ShardStatus {
  readonly index: number;
  /** Its workerd runs and answered its last health check. */
  readonly ready: boolean;
  /** The id of the workerd serving, unique among every workerd the engine started. */
  readonly generation: number;
  readonly pid: number;
  /** Restarts after a crash or a stop by the watchdog. */
  readonly restarts: number;
  /** Fresh workerd started in place of a healthy one: past its isolates' bound, past its memory's recycle point. */
  readonly recycles: { readonly isolates: number; readonly memory: number };
  /** App isolates it has loaded. */
  readonly loadedWorkers: number;
  /** Apps it serves. */
  readonly apps: number;
}

export interface RuntimeStatus {
  /**
   * Every shard's workerd runs and answered its last health check, or is being started again right after an
   * app's code stopped it at a limit (a moment: an app tripping its bound cannot make the replica unready).
   */
  readonly ready: boolean;
  /** Restarts since start, over all shards. */
  readonly restarts: number;
  /** workerd processes launched since start. */
  readonly workerdStarts: number;
  readonly apps: number;
  /** App isolates the serving workerd processes have loaded. */
  readonly loadedWorkers: number;
  /** Builds loaded in the checker workerd before they were served, since start. */
  readonly loadChecks: number;
  readonly shards: readonly ShardStatus[];
}
