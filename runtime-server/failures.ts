import { ArtifactError, ArtifactTooLargeError, BuildLoadError, BuildQuotaError, InsufficientStorageError, type AppDeployment } from './engine/index.ts';
import type { DeployFailure } from '../src/runtime-contract/report.ts';
import { ArtifactNotFoundError } from './s3-artifact-source.ts';

/**
 * What a failed `engine.deploy` means for the app: its report, and whether trying again can help. An
 * invalid artifact or a build workerd refuses stays that way for this spec (terminal: no retry; the engine
 * remembers the refusal, so a later resync costs nothing). A missing artifact may still be uploaded, room
 * may come for a build the replica has no room for, and anything else (the object store down, a rollout
 * that failed for every app) is transient.
 */
export function classifyDeployError(err: unknown, buildId: string): { failure: DeployFailure; terminal: boolean } {
  if (err instanceof BuildLoadError) return { failure: { reason: 'BuildFailed', buildId, message: err.detail }, terminal: true };
  if (err instanceof ArtifactError || err instanceof ArtifactTooLargeError) {
    return { failure: { reason: 'BuildFailed', buildId, message: err.message }, terminal: true };
  }
  // No room (the replica's disk, the project's quota): neither the build's fault for good nor a failure of the
  // replica; reported, and tried again with backoff as other builds may go.
  if (err instanceof InsufficientStorageError) return { failure: { reason: 'InsufficientStorage', buildId, message: err.message }, terminal: false };
  if (err instanceof BuildQuotaError) return { failure: { reason: 'QuotaExceeded', buildId, message: err.message }, terminal: false };
  if (err instanceof ArtifactNotFoundError) {
    return { failure: { reason: 'BuildNotFound', buildId, message: `The artifact of build ${buildId} is not in the object store (${err.key}).` }, terminal: false };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { failure: { reason: 'Retrying', buildId, message }, terminal: false };
}

/**
 * Which build a failed deploy is about: the one the error names, else, during a rollout, the new release's
 * (the stable one was served before), else the deployment's.
 */
export function failedBuildOf(err: unknown, deployment: Pick<AppDeployment, 'buildId' | 'canary'>): string {
  if (err instanceof BuildLoadError) return err.buildId;
  const canary = deployment.canary?.buildId;
  if (err instanceof ArtifactNotFoundError) return canary !== undefined && err.key.endsWith(`/${canary}.tar.zst`) ? canary : deployment.buildId;
  return canary ?? deployment.buildId;
}
