import type { RuntimeLogger } from '../../src/runtime-contract/log.ts';
import type { Refusal, Route, SettledRoute } from './entry-proxy.ts';
import type { OnDemand } from './on-demand.ts';
import type { AppDeployment } from './ports.ts';
import { RouteCancel } from './route-cancel.ts';
import { isBuildRefusal, sameDeployment, type PreparationFailures } from './preparation-failures.ts';

/** What the first request of an app served on demand needs of the engine. */
export interface FirstRequestHost {
  readonly onDemand: OnDemand;
  readonly failures: PreparationFailures;
  readonly log: RuntimeLogger;
  /** `Retry-After` of the 503 answers. */
  readonly retryAfter: string;
  /** The app's deployment now. */
  desired(key: string): AppDeployment | undefined;
  /** Fetches and unpacks the build of a deployment (and of its rollout's new release). */
  unpack(app: AppDeployment): Promise<void>;
  /** Whether `key` has a deployment it served before to serve instead of one that cannot be (`fallbacks.ts`). */
  hasFallback(key: string): boolean;
  /**
   * Runs the convergence pass that prepares `key`; resolves once it serves it (`fellBack`: its fallback, its
   * deployment having failed with `failure` in this pass or earlier), or rejects with why it serves nothing.
   */
  serve(key: string): Promise<{ readonly fellBack: boolean; readonly failure?: unknown }>;
  /** A request the entry point answered itself. */
  refused(key: string): void;
  /** The preparation failed (the engine's `onPrepared`). */
  failed(key: string): void;
  /** The preparation served the app's deployment (the engine's `onPrepared`). */
  loaded(key: string): void;
}

/**
 * Where the first request of an app not prepared on this replica goes once it is (the convergence pass that
 * fetches, checks and loads its build; one for every request meanwhile), or its 503: preparation failed, or
 * took longer than the first request may wait (it goes on: a retry finds it prepared). A build that cannot be
 * served is remembered for that deployment, so later requests are answered at once instead of loading it again.
 * `route` routes the request again once the app is prepared; `chain` lets it go if its client leaves while held after.
 */
export async function firstRequest(host: FirstRequestHost, key: string, route: () => Route, chain = new RouteCancel()): Promise<SettledRoute> {
  const refusal = (detail: string, reason = 'AppPreparing'): { refusal: Refusal } => {
    host.refused(key);
    return { refusal: { status: 503, title: 'Service Unavailable', detail, retryAfter: host.retryAfter, reason } };
  };
  const unservable = () => isBuildRefusal(host.failures.of(key, host.desired(key))?.error);
  const broken = () => refusal("The app's current build cannot be served; a new deployment of the app replaces it.", 'BuildFailed');
  if (unservable() && !host.hasFallback(key)) return broken();

  const prepared = host.onDemand.first(key, () => prepareOnDemand(host, key));
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), host.onDemand.firstRequestTimeoutMs)));
  // Settled either way, so a preparation that fails after this request stopped waiting is no unhandled rejection.
  const outcome = await Promise.race([
    prepared.then(
      () => 'prepared' as const,
      () => 'failed' as const,
    ),
    timedOut,
  ]);
  clearTimeout(timer);
  if (outcome === 'timeout') return refusal('The app is being prepared on this replica; retry shortly.');
  if (outcome === 'failed') return unservable() ? broken() : refusal('The app could not be prepared on this replica; retry shortly.');
  const next = route();
  if (!('pending' in next)) return next;
  // Held for its project's probation turn or its shard's restart (`held-requests.ts`, bounded): waits on. Another
  // first request (the app let go meanwhile) is not started from here.
  return next.cancel ? chain.follow(next) : refusal('The app is being prepared on this replica; retry shortly.');
}

/** One preparation, shared by the first requests that arrive while it runs (and a background check's, `build-checks.ts`). */
export async function prepareOnDemand(host: FirstRequestHost, key: string): Promise<void> {
  const started = performance.now();
  let fetched = started;
  const app = host.desired(key);
  // What the pass tried: deployed anew while this fetched, the new deployment, which the pass prepares.
  let tried = app;
  // Why its build could not be had, when the pass serves the fallback for it.
  let unfetched: { error: unknown } | undefined;
  // Only while the app still asks for what failed: removed meanwhile, nothing is kept of it; deployed anew after the
  // pass, its next request prepares the new deployment.
  const failed = (err: unknown) => {
    if (!tried || !sameDeployment(host.desired(key), tried)) return;
    host.failures.record(key, tried, err);
    host.failed(key);
  };
  try {
    // Fetched and unpacked before the pass, not in it: a large artifact then delays no other app's pass. One that
    // cannot be had fails the pass too, which then serves the app's fallback if it has one.
    if (app) {
      await host.unpack(app).catch((err: unknown) => {
        if (!host.hasFallback(key)) throw err;
        unfetched = { error: err };
      });
    }
    fetched = performance.now();
    host.onDemand.fetched(key);
    tried = host.desired(key);
    const served = await host.serve(key);
    if (!served.fellBack) {
      host.failures.forget(key);
      host.loaded(key);
    } else if ('failure' in served || unfetched) {
      const error = 'failure' in served ? served.failure : unfetched?.error;
      host.log.warn('an app’s deployment could not be prepared for its first request; it serves the one before', { app: key, error });
      failed(error);
    }
  } catch (err) {
    host.log.warn('preparing an app for its first request failed', { app: key, error: err });
    failed(err);
    throw err;
  }
  const ms = (from: number, to: number) => Math.round(to - from);
  host.log.info('app prepared on its first request', { app: key, ms: ms(started, performance.now()), fetchMs: ms(started, fetched) });
}
