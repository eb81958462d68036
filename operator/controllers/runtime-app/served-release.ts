import type { RuntimeApp, RuntimeAppStatus } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { migrationsPending, releaseOf, servingPlan } from '../../../src/runtime-contract/releases.ts';

/**
 * `status.served`: the release every ready replica serves with nothing held back, once they do (`Deployed` True at
 * this generation, for the spec or the one release of an aborted rollout); otherwise what it said. Read by the
 * replicas while a spec's migrations are pending, and as the fallback of a replica that served nothing of the app
 * (runtime-server/recorded-fallback.ts), so it must be what is served, not what was asked for: a build that failed
 * to load, recorded as served, would be all a new replica had to serve.
 */
export function withServed(app: RuntimeApp, status: RuntimeAppStatus): RuntimeAppStatus {
  const now: RuntimeApp = { ...app, status };
  if (migrationsPending(now)) return status;
  const deployed = findCondition(status.conditions, 'Deployed');
  if (deployed?.status !== 'True' || deployed.observedGeneration !== app.metadata?.generation) return status;
  const plan = servingPlan(now);
  const served = plan.kind === 'spec' ? releaseOf(app.spec) : plan.kind === 'single' ? plan.release : undefined;
  return served ? { ...status, served } : status;
}
