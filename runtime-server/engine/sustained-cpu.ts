// Which app holds a shard's one thread over a window while another tenant's requests wait for it. The watchdog's
// CPU bound (`watchdog.ts`) ends code that computes without yielding; code that computes in short slices and yields
// between them, sent many requests at once, keeps the thread as busy and is never stuck. Pure: fed the watchdog's
// ticks, so the cases are tested with made-up ticks; docs/runtime.md ("Bounded user code") has the rule.
import { splitKey } from '../../src/kube/types.ts';

/** The share of a window the shard's thread must have wanted a core (computing, or ready to and waiting) to be saturated. */
export const SATURATED = 0.9;
/**
 * The share of a window other projects than the one holding the thread must have waited for it, summed over them
 * (each project the time it had a request workerd had not begun to answer). Summed, not asked of one project: a
 * hostile review kept a shard saturated for as long as it liked while each co-tenant with ordinary traffic (a request
 * every second or two, each waiting ~0.4 s) waited far less than the half of the window the bound once asked of one
 * project (review-183 F6). A tenth is 0.5 s of the default 5 s window: one such request or two.
 */
export const WAITED = 0.1;

/** What the watchdog read of a shard at one tick. */
export interface ShardTick {
  /** When (epoch ms). */
  readonly at: number;
  /** CPU time its thread has used so far, in ms. */
  readonly cpuMs: number;
  /** Its CPU time plus the time it was ready to run and waited for a core, so far, in ms: a thread on a busy machine wants a core all the time without getting one. */
  readonly busyMs: number;
  /**
   * App key → its requests in flight on the shard that it has not begun to answer: they wait for the thread (a
   * WebSocket or a stream open for long after its answer began waits for nothing).
   */
  readonly inFlight: ReadonlyMap<string, number>;
  /**
   * Project → how long, in all, it has had a request there workerd had not begun to answer, up to now (ms; the entry
   * point's clock, `UpstreamPool.waitedMs`): exact where `inFlight`, read at ticks, misses requests shorter than a tick
   * and stretches the others to whole ticks. Without it, a project's waiting is the ticks it had one in flight at.
   */
  readonly waitedMs?: ReadonlyMap<string, number>;
}

/** A window over which a shard's thread was saturated while requests were in flight on it. */
export interface SustainedUse {
  readonly wallMs: number;
  readonly cpuMs: number;
  /** The share of the window the thread wanted a core. */
  readonly busy: number;
  /** App key → the share of the window's CPU time laid on it by its requests in flight (each tick's CPU time split in proportion to them). */
  readonly byRequests: ReadonlyMap<string, number>;
  /** Projects that had requests waiting in the window. */
  readonly waiting: ReadonlySet<string>;
  /** Project → how long in the window it had a request waiting (ms). */
  readonly waitedMs: ReadonlyMap<string, number>;
}

/**
 * A shard's recent ticks, and whether its thread was saturated over the last `windowMs` with requests in flight: a
 * window found so is answered once (the next needs a window of its own).
 */
export class SustainedCpu {
  readonly #windowMs: number;
  /** Oldest first; the first is the one at or just before the window's start. */
  #ticks: ShardTick[] = [];

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  tick(tick: ShardTick): SustainedUse | undefined {
    this.#ticks.push(tick);
    const start = this.#ticks.findLastIndex((t) => t.at <= tick.at - this.#windowMs);
    if (start < 0) return undefined;
    this.#ticks.splice(0, start);
    const first = this.#ticks[0]!;
    const wallMs = tick.at - first.at;
    const busy = (tick.busyMs - first.busyMs) / wallMs;
    if (busy < SATURATED) return undefined;
    const attributed = new Map<string, number>();
    const waitedMs = new Map<string, number>();
    for (let i = 1; i < this.#ticks.length; i++) {
      const { at, cpuMs, inFlight } = this.#ticks[i]!;
      const before = this.#ticks[i - 1]!;
      const requests = [...inFlight.values()].reduce((sum, n) => sum + n, 0);
      const projects = new Set<string>();
      for (const [app, n] of inFlight) {
        if (n <= 0) continue;
        attributed.set(app, (attributed.get(app) ?? 0) + ((cpuMs - before.cpuMs) * n) / requests);
        projects.add(splitKey(app).namespace);
      }
      if (!tick.waitedMs) for (const project of projects) waitedMs.set(project, (waitedMs.get(project) ?? 0) + at - before.at);
    }
    if (tick.waitedMs) {
      for (const [project, ms] of tick.waitedMs) {
        const waited = ms - (first.waitedMs?.get(project) ?? 0);
        if (waited > 0) waitedMs.set(project, waited);
      }
    }
    // Nobody's requests waited long enough, the holder's own included: no one else's did either.
    if (waitedBesides(waitedMs, undefined) < WAITED * wallMs) return undefined;
    const waiting = new Set(waitedMs.keys());
    this.#ticks = [tick];
    const cpuMs = tick.cpuMs - first.cpuMs;
    const byRequests = new Map([...attributed].map(([app, ms]) => [app, cpuMs > 0 ? ms / cpuMs : 0]));
    return { wallMs, cpuMs, busy, byRequests, waiting, waitedMs };
  }
}

/** How long projects other than `project` (every one, when undefined) waited, summed. */
function waitedBesides(waitedMs: ReadonlyMap<string, number>, project: string | undefined): number {
  let sum = 0;
  for (const [other, ms] of waitedMs) if (other !== project) sum += ms;
  return sum;
}

/**
 * The app held to a saturated window, if one is: the app found most of the project that had more than half of the thread, by what the thread
 * itself was found running (`samples`: the apps whose code each sample of it ran, none when no app's), or else by
 * its requests in flight; and only while other projects' requests waited, {@link WAITED} of the window summed. An
 * app alone on its shard (or beside its own project's apps) may keep the thread busy: it starves nobody else.
 */
export function sustainedCulprit(use: SustainedUse, samples?: ReadonlyArray<readonly string[]>): { readonly app: string; readonly share: number } | undefined {
  const shares = samples === undefined ? use.byRequests : sampleShares(samples);
  // By project first, as shards are: a project splitting its work over two apps holds the thread all the same. Its
  // app found most is held; another of it still computing is found alone in the next window.
  const byProject = new Map<string, number>();
  for (const [app, share] of shares) {
    const { namespace } = splitKey(app);
    byProject.set(namespace, (byProject.get(namespace) ?? 0) + share);
  }
  const [project, share] = largest(byProject);
  if (project === undefined || share <= 0.5) return undefined;
  const [app] = largest(new Map([...shares].filter(([key]) => splitKey(key).namespace === project)));
  if (app === undefined) return undefined;
  // Other projects' requests waited for it, {@link WAITED} of the window summed over them.
  return waitedBesides(use.waitedMs, project) >= WAITED * use.wallMs ? { app, share } : undefined;
}

function largest(shares: ReadonlyMap<string, number>): [string | undefined, number] {
  return [...shares].reduce<[string | undefined, number]>((best, entry) => (entry[1] > best[1] ? entry : best), [undefined, 0]);
}

/** App → the share of the samples that found the thread in its code (a sample naming several apps counts for each in part). */
function sampleShares(samples: ReadonlyArray<readonly string[]>): Map<string, number> {
  const shares = new Map<string, number>();
  for (const apps of samples) for (const app of apps) shares.set(app, (shares.get(app) ?? 0) + 1 / apps.length / samples.length);
  return shares;
}
