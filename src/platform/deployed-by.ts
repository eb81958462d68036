import { DEPLOYED_BUILD_ANNOTATION, DEPLOYED_BY_ANNOTATION } from '../apis/v1alpha1/activation.ts';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';

/**
 * The app with `spec`, and, when `by` is known, the annotations saying who activated its build, written in the
 * same update so the operator's deploy history (status.history) reads them with the change. Without `by` the
 * annotations stay: they name the build they are about, so they never describe another.
 */
export function withDeployedBy(app: RuntimeApp, spec: RuntimeApp['spec'], by: string | undefined): RuntimeApp {
  if (!by || !spec.activeBuildId) return { ...app, spec };
  const annotations = { ...app.metadata?.annotations, [DEPLOYED_BY_ANNOTATION]: by, [DEPLOYED_BUILD_ANNOTATION]: spec.activeBuildId };
  return { ...app, metadata: { ...app.metadata, annotations }, spec };
}

/** The deployed-by value of a person (or their token) using the API. */
export function byUser(userId: string): string {
  return `user:${userId}`;
}

/** The deployed-by value of push to deploy: the repository and the commit built. */
export function byPush(repository: string, commit: string): string {
  return `push:${repository}@${commit}`;
}
