import type { AppDeployment } from './ports.ts';

const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Why the engine cannot take a deployment as given (a `TypeError` naming the field), or undefined when it can. */
export function deploymentProblem(app: AppDeployment): TypeError | undefined {
  if (!LABEL.test(app.project) || !LABEL.test(app.appId)) return new TypeError(`project and app id must be DNS labels: ${app.project}/${app.appId}`);
  const limit = app.maxConcurrentRequests;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) return new TypeError('maxConcurrentRequests must be a positive integer');
  const canary = app.canary;
  if (canary && (!canary.buildId || !Number.isInteger(canary.weight) || canary.weight < 0 || canary.weight > 100)) return new TypeError('a canary needs a build id and a weight from 0 to 100');
  return undefined;
}
