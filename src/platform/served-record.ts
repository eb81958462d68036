import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../conditions/index.ts';
import { migrationsPending, releaseOf } from '../runtime-contract/releases.ts';

/** How long a deploy of a build with migrations waits for the release before it to be recorded as served. */
export const SERVED_RECORD_WAIT_MS = 10_000;

const WAIT_FOR = new Set(['RollingOut', 'BuildNotFound']);

/**
 * Whether a build with migrations may follow what `app` asks for now without waiting: while its migrations run,
 * the replicas serve the release the operator recorded as served (`status.served`, `servingPlan`), which lags
 * the replicas' first answers by their reports. Settled: nothing active; a rollout the operator recorded (its
 * stable release serves meanwhile); the current spec held for its own migrations (what is recorded serves, as it will then);
 * the current release recorded as served; or the operator said at this generation that it is not served
 * (a failed build, no runtime): nothing better than what is recorded would serve.
 */
export function servedRecordSettled(app: RuntimeApp): boolean {
  const current = releaseOf(app.spec);
  if (!current || (app.spec.rollout && app.status?.rollout) || migrationsPending(app)) return true;
  if (app.status?.served?.release === current.release) return true;
  const deployed = findCondition(app.status?.conditions, 'Deployed');
  // RollingOut (the operator's reason while replicas converge) and BuildNotFound (its cache of Builds a moment behind
  // the deploy's) are the not-yet-served states worth waiting for.
  return deployed?.observedGeneration === app.metadata?.generation && deployed?.status !== 'True' && !WAIT_FOR.has(deployed?.reason ?? '');
}
