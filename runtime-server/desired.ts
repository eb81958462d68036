import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { AppDeployment } from './engine/index.ts';

/**
 * What the runtime should serve for `app`: its active build with its environment (plain, then `linked`: the
 * values of its `spec.databaseEnvironment`, read from the Databases' app-token Secrets), host names (its deploy's,
 * then `attached`: its active AppHostnames) and limit, or nothing (an app being deleted, or one without a
 * build). Pure: the reconciler hands the answer to the engine, which converges on it. The project is the
 * namespace; the app id is the name.
 */
export function deploymentOf(app: RuntimeApp | undefined, attached: readonly string[] = [], linked: Readonly<Record<string, string>> = {}): AppDeployment | undefined {
  const project = app?.metadata?.namespace;
  const appId = app?.metadata?.name;
  const buildId = app?.spec.activeBuildId;
  if (!app || !project || !appId || !buildId || app.metadata?.deletionTimestamp) return undefined;
  return {
    project,
    appId,
    buildId,
    env: { ...app.spec.environment, ...linked },
    hostnames: [...new Set([...(app.spec.hostnames ?? []), ...attached])],
    ...(app.spec.maxConcurrentRequests !== undefined ? { maxConcurrentRequests: app.spec.maxConcurrentRequests } : {}),
  };
}
