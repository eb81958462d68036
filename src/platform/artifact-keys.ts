/**
 * Where build artifacts live in the platform's bucket, shared by the API (which stores uploads) and the
 * runtime (which fetches them): `apps/<project>/<app>/builds/<buildId>.tar.zst`. A build id is derived
 * from the artifact's digest, so uploading the same artifact twice is the same build (an idempotent
 * deploy), and an app's artifacts sit under one prefix that its deletion removes.
 */
export function buildIdFor(digestHex: string): string {
  return `b-${digestHex.slice(0, 16)}`;
}

export function appArtifactPrefix(project: string, app: string): string {
  return `apps/${project}/${app}/builds/`;
}

export function artifactKey(project: string, app: string, buildId: string): string {
  return `${appArtifactPrefix(project, app)}${buildId}.tar.zst`;
}

/** The Build custom resource's name for a build of an app. */
export function buildResourceName(app: string, buildId: string): string {
  return `${app}-${buildId}`;
}
