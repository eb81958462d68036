import { isDeepStrictEqual } from 'node:util';
import { ArtifactError, ArtifactTooLargeError, BuildLoadError } from '../../src/app-artifacts/errors.ts';
import type { AppDeployment } from './ports.ts';

/** A failed first-request preparation: the deployment it was for and why. */
export interface PreparationFailure {
  readonly app: AppDeployment;
  readonly error: unknown;
}

/**
 * Why an app served on demand could not be prepared for its first request on this replica, per app, for as long
 * as that deployment is the one asked for. The replica reports it (a build workerd refuses is `BuildFailed` on the
 * RuntimeApp, as when a deploy prepares it at once), and a build that cannot be served is not fetched, unpacked
 * and loaded again by every later request: only a new deployment of the app tries again.
 */
export class PreparationFailures {
  readonly #failures = new Map<string, PreparationFailure>();

  record(key: string, app: AppDeployment, error: unknown): void {
    this.#failures.set(key, { app, error });
  }

  /** The failure of `app` (this deployment: a redeploy of another is a new one), if its preparation failed. */
  of(key: string, app: AppDeployment | undefined): PreparationFailure | undefined {
    const failure = this.#failures.get(key);
    return failure && sameDeployment(failure.app, app) ? failure : undefined;
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }
}

/** Errors that preparing the same build again would meet again: an invalid artifact, a build workerd refuses. */
export function isBuildRefusal(error: unknown): boolean {
  return error instanceof BuildLoadError || error instanceof ArtifactError || error instanceof ArtifactTooLargeError;
}

/**
 * Whether two deployments ask for the same thing. By content, not identity: the serving controller deploys an app
 * again unchanged (its first pass, after a lookup routed it), and a failure found meanwhile is that deployment's.
 */
export function sameDeployment(a: AppDeployment | undefined, b: AppDeployment | undefined): boolean {
  return a === b || isDeepStrictEqual(a, b);
}
