import type { AppDeployment } from './ports.ts';

const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Why the engine cannot take a deployment as given (a `TypeError` naming the field), or undefined when it can. */
export function deploymentProblem(app: AppDeployment): TypeError | undefined {
  if (!LABEL.test(app.project) || !LABEL.test(app.appId)) return new TypeError(`project and app id must be DNS labels: ${app.project}/${app.appId}`);
  const limit = app.maxConcurrentRequests;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) return new TypeError('maxConcurrentRequests must be a positive integer');
  return undefined;
}
