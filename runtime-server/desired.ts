import type { DatabaseEnvironmentEntry, RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { servingPlan, type ServingPlan } from '../src/runtime-contract/releases.ts';
import { isRouted } from '../src/runtime-contract/asked-hosts.ts';
import type { AppDeployment } from './engine/index.ts';

type Variables = Readonly<Record<string, string>>;
type DatabaseEnvironment = Readonly<Record<string, DatabaseEnvironmentEntry>>;

/**
 * What the runtime should serve for `app`, following its serving plan (`servingPlan`: the spec, the stable
 * release the operator recorded, or both split by weight during a rollout): the release's build with its
 * environment (plain, then `linked`: the values of its database variables, read from the Databases' app-token
 * Secrets; `canaryLinked` for the new release of a split), the spec's host names (then `attached`: the app's
 * active AppHostnames) and limit; or nothing (an app being deleted, or one without a build). Pure: the
 * reconciler hands the answer to the engine, which converges on it. The project is the namespace; the app id
 * is the name.
 */
export function deploymentOf(app: RuntimeApp | undefined, attached: readonly string[] = [], linked: Variables = {}, canaryLinked: Variables = {}): AppDeployment | undefined {
  const project = app?.metadata?.namespace;
  const appId = app?.metadata?.name;
  const buildId = app?.spec.activeBuildId;
  if (!app || !project || !appId || !buildId || !isRouted(app)) return undefined;
  const plan = servingPlan(app);
  if (plan.kind === 'held') return undefined; // never for an app routed: narrows the plan
  const release = plan.kind === 'spec' ? { buildId, environment: app.spec.environment } : plan.kind === 'single' ? plan.release : plan.stable;
  return {
    project,
    appId,
    buildId: release.buildId,
    env: { ...release.environment, ...linked },
    hostnames: [...new Set([...(app.spec.hostnames ?? []), ...attached])],
    ...(app.spec.maxConcurrentRequests !== undefined ? { maxConcurrentRequests: app.spec.maxConcurrentRequests } : {}),
    ...(app.metadata?.creationTimestamp ? { createdAt: Date.parse(app.metadata.creationTimestamp) } : {}),
    ...(plan.kind === 'split' ? { canary: { buildId: plan.canary.buildId, env: { ...plan.canary.environment, ...canaryLinked }, weight: plan.weight, affinity: plan.affinity } } : {}),
  };
}

/** The database variables of what `plan` serves: those of the (stable) release, and of the new one in a split. */
export function linkedEntries(app: RuntimeApp, plan: ServingPlan = servingPlan(app)): { serving?: DatabaseEnvironment; canary?: DatabaseEnvironment } {
  if (plan.kind === 'spec') return app.spec.databaseEnvironment ? { serving: app.spec.databaseEnvironment } : {};
  if (plan.kind === 'held') return {};
  const serving = plan.kind === 'single' ? plan.release.databaseEnvironment : plan.stable.databaseEnvironment;
  const canary = plan.kind === 'split' ? plan.canary.databaseEnvironment : undefined;
  return { ...(serving ? { serving } : {}), ...(canary ? { canary } : {}) };
}

/** What a change of the plan is, for the reconciler's "already served" check: the release(s), the weight and the affinity. */
export function planSignature(plan: ServingPlan): string {
  if (plan.kind === 'spec' || plan.kind === 'held') return plan.kind;
  if (plan.kind === 'single') return `single ${plan.release.release}`;
  return `split ${plan.stable.release} ${plan.canary.release} ${plan.weight} ${JSON.stringify(plan.affinity)}`;
}
