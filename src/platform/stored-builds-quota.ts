// The project quota on stored builds: what the bucket holds for a project's apps, every build kept for
// rollbacks included, counted by the compressed bytes uploaded. Builds are bounded per app by count, and a
// project may have many apps, so without a bound in bytes one project could keep 100 × 101 builds of 64 MiB.
// Past the quota the RuntimeApp controller lets the project's oldest builds go, as it does past the count; the
// API refuses only a build that the builds retention never lets go (active, in a rollout) leave no room for.
import type { Build } from '../apis/v1alpha1/build.ts';
import { RUNTIME_APP_FINALIZER, type RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { PublicError } from '../errors.ts';

const GIB = 1024 * 1024 * 1024;

/** What a project's stored builds may take together, compressed, unless configured otherwise (`CW_PROJECT_STORED_BUILDS_QUOTA`). */
export const DEFAULT_PROJECT_STORED_BUILDS_QUOTA = 2 * GIB;

/**
 * On a Build: the bytes its artifact takes in the bucket, as the platform measured them (the API as it stored the
 * upload, the operator by reading the object for a Build written otherwise). `spec.size` is its writer's word, and
 * a tenant writing Builds with kubectl could say 0; a `created-by-*` annotation a tenant may remove but never
 * write (tenant-metadata-policy.yaml), and the operator measures again a Build without it.
 */
export const STORED_BYTES_ANNOTATION = 'cloudwright.dev/created-by-upload';

/** The bytes the platform measured for `build`'s artifact, if it has. */
export function measuredBytesOf(build: Build): number | undefined {
  const text = build.metadata?.annotations?.[STORED_BYTES_ANNOTATION];
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

/** The bytes a build counts for: as measured, else (until the operator has measured it) as its spec says. */
export function countedBytesOf(build: Build): number {
  return measuredBytesOf(build) ?? build.spec.size;
}

/** The bytes a project's builds take in the bucket (their uploaded, compressed size). */
export function storedBytes(builds: readonly Build[]): number {
  return builds.reduce((sum, build) => sum + countedBytesOf(build), 0);
}

/**
 * Whether `app`'s artifacts are gone though its Builds may not be: deleted, its finalizer's teardown done. A
 * foreign finalizer can hold such an app, and so its Builds (their owner), for good; counted, their bytes would
 * take room in the project's quota that no pruning can give back.
 */
export function artifactsTornDown(app: RuntimeApp | undefined): boolean {
  return app?.metadata?.deletionTimestamp !== undefined && !(app.metadata.finalizers ?? []).includes(RUNTIME_APP_FINALIZER);
}

/** The builds of `builds` whose artifacts the bucket still holds, by their apps (`app` finds one by name). */
export function storedBuilds(builds: readonly Build[], app: (name: string) => RuntimeApp | undefined): Build[] {
  return builds.filter((build) => !artifactsTornDown(app(build.spec.app)));
}

/**
 * The builds of `app` retention never lets go: the active one, a rollout's stable one (served while the spec
 * names another) and its new one (a retry or a set-back may name it again), and those a replica serves (by its
 * report, or by the status's own record: a replica that has not acted on the latest spec says nothing of the
 * build it still serves, and that build must not go from under it).
 */
export function keptBuilds(app: RuntimeApp, served: ReadonlyArray<{ readonly servingBuildId?: string } | undefined> = []): Set<string> {
  const rollout = app.status?.rollout;
  const ids = [app.spec.activeBuildId, rollout?.stable.buildId, rollout?.canary?.buildId, app.status?.servingBuildId, app.status?.served?.buildId, ...served.map((report) => report?.servingBuildId)];
  return new Set(ids.filter((id): id is string => id !== undefined && id !== ''));
}

/** The bytes of the builds retention keeps for `apps` (by their `spec.app`): what no pruning can free. */
export function keptStoredBytes(apps: readonly RuntimeApp[], builds: readonly Build[]): number {
  const kept = new Map(apps.map((app) => [app.metadata?.name ?? '', keptBuilds(app)]));
  return storedBytes(builds.filter((build) => kept.get(build.spec.app)?.has(build.spec.buildId)));
}

/**
 * The stored-builds quota refuses an upload: 413 when the build alone is larger than the quota, else 409 (the
 * builds the project's apps serve or roll out take the rest; older builds would have been let go). The detail
 * names the figures.
 */
export class StoredBuildsQuotaError extends PublicError {
  override readonly name = 'StoredBuildsQuotaError';

  constructor(project: string, figures: { quota: number; kept: number; build: number }) {
    const { quota, kept, build } = figures;
    super(
      build > quota ? 413 : 409,
      build > quota
        ? `This build is ${build} bytes, more than project ${project}'s quota of ${quota} bytes of stored builds.`
        : `Project ${project}'s apps' active and rolling-out builds take ${kept} bytes of stored builds and this build ${build}: together more than the project's quota of ${quota} bytes. Delete apps, or deploy smaller builds to them, to make room.`,
    );
  }
}

/** Throws {@link StoredBuildsQuotaError} when `build` bytes on top of the `kept` ones pass `quota`. */
export function checkStoredBuildsQuota(project: string, quota: number, kept: number, build: number): void {
  if (kept + build > quota) throw new StoredBuildsQuotaError(project, { quota, kept, build });
}
