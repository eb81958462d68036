// The second release of an app during a rollout, as the engine prepares, load-checks and serves it: the
// deployment itself with the canary's build and environment, so everything per release (build store,
// loader ids, worker code, load verdicts) works unchanged on it.
import type { AppDeployment } from './ports.ts';
import { workerFingerprint, type LiveApp } from './worker-code.ts';

/** The rollout's new release of `app` as a deployment of its own, or undefined outside a rollout. */
export function canaryDeployment(app: AppDeployment): AppDeployment | undefined {
  const canary = app.canary;
  if (!canary) return undefined;
  const { canary: _split, ...rest } = app;
  return { ...rest, buildId: canary.buildId, env: canary.env };
}

/** Which pair of releases a split serves: a change of either starts the per-release counts again. */
export function splitTag(stable: LiveApp, canary: LiveApp): string {
  return `${workerFingerprint(stable)}:${workerFingerprint(canary)}`;
}

/**
 * The tag of one run of a split (`<pair>#<run>`): the run it continues when `previous` is of the same pair, else a
 * new one (`next`). A rollout aborted and tried again is the same pair, and its analysis must not count the requests
 * that failed before the abort: a split that stopped and starts again counts from zero.
 */
export function splitRun(pair: string, previous: string | undefined, next: () => string): string {
  return previous !== undefined && previous.slice(0, previous.lastIndexOf('#')) === pair ? previous : `${pair}#${next()}`;
}

/** The run of a split's tag (what a replica's report names it by). */
export function runOfTag(tag: string): string {
  return tag.slice(tag.lastIndexOf('#') + 1);
}
