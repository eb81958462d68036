import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { AppDeployment } from './engine/index.ts';
import { linkedEnvironment, type DatabaseSources } from './linked-environment.ts';

/**
 * What an app falls back to on a replica that has served none of it (started, or let it go) when its new build
 * cannot be served here either: the release every ready replica served before that build (`status.served`, which
 * the operator advances only once a build is served). Without it, a deploy that every replica refused took the app
 * down on each replica started since, while the older ones went on serving the release before.
 *
 * Only for a new build of the spec's own release (as an engine records fallbacks: an environment changed alone
 * records none), and only when the release's database variables can be had now.
 */
export async function recordedFallback(databases: DatabaseSources | undefined, app: RuntimeApp, deployment: AppDeployment, namespace: string): Promise<AppDeployment | undefined> {
  const served = app.status?.served;
  if (!served || deployment.canary || deployment.buildId !== app.spec.activeBuildId || served.buildId === deployment.buildId) return undefined;
  const linked = await linkedEnvironment(databases, served.databaseEnvironment, namespace);
  if ('problem' in linked) return undefined;
  return { ...deployment, buildId: served.buildId, env: { ...served.environment, ...linked.env } };
}

/**
 * What a replica that serves nothing of the app (started since, or let it go) serves while the spec's database
 * variables cannot be had: the release the replicas served before (`status.served`), when its own variables can.
 * Without it, a rolling restart of the runtime took such an app down on every replica, while its status said the
 * release before kept serving.
 */
export async function servedInstead(databases: DatabaseSources | undefined, app: RuntimeApp, deployment: AppDeployment, namespace: string): Promise<AppDeployment | undefined> {
  const served = app.status?.served;
  if (!served || deployment.canary) return undefined;
  const linked = await linkedEnvironment(databases, served.databaseEnvironment, namespace);
  if ('problem' in linked) return undefined;
  return { ...deployment, buildId: served.buildId, env: { ...served.environment, ...linked.env } };
}

/**
 * Whether a replica refused the app's spec as it is now: the operator's `Ready` condition says `BuildFailed` at the
 * app's generation. A replica that has not tried it (started since) then checks it before reporting it served, so a
 * restart does not show a known-bad build `Ready` until its first request (`cache-projections.ts` keeps that
 * condition of such an app only).
 */
export function refusedBefore(app: RuntimeApp): boolean {
  return refusal(app) !== undefined;
}

/** The app's `Ready` condition when it says `BuildFailed` at the app's generation. */
export function refusal(app: RuntimeApp): NonNullable<NonNullable<RuntimeApp['status']>['conditions']>[number] | undefined {
  const generation = app.metadata?.generation;
  if (generation === undefined) return undefined;
  return app.status?.conditions?.find((c) => c.type === 'Ready' && c.reason === 'BuildFailed' && c.observedGeneration === generation);
}
