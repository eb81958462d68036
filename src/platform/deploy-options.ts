// Deploy options belong to a deployment (the spec: "a per-deployment option set at deploy time"): a deploy
// sets them all, an option left out meaning its default, and its Build records them so that a rollback to
// that build serves it as it was deployed. An option a GitOps tool applies is that tool's: a deploy leaving it
// out and every rollback keep the app's value.
import type { BuildDeployOptions } from '../apis/v1alpha1/build.ts';
import type { RuntimeApp, RuntimeAppSpec } from '../apis/v1alpha1/runtime-app.ts';
import { appliedElsewhere } from './applied-elsewhere.ts';

/** What a deploy records on its Build: its host names (none: left out) and its concurrency bound (default: left out). */
export function recordedOptions(hostnames: readonly string[], maxConcurrentRequests: number | undefined): BuildDeployOptions {
  return {
    ...(hostnames.length > 0 ? { hostnames: [...hostnames] } : {}),
    ...(maxConcurrentRequests !== undefined ? { maxConcurrentRequests } : {}),
  };
}

/** The app's spec serving `options`: the deploy host names and concurrency bound replaced, absent ones removed. */
export function withOptions(spec: RuntimeAppSpec, options: BuildDeployOptions): RuntimeAppSpec {
  const { hostnames: _hostnames, maxConcurrentRequests: _max, ...rest } = spec;
  return { ...rest, ...recordedOptions(options.hostnames ?? [], options.maxConcurrentRequests) };
}

/** The app's options that a GitOps tool applies, as the app has them. */
export function appliedOptions(app: RuntimeApp): BuildDeployOptions {
  const { hostnames, maxConcurrentRequests } = app.spec;
  return {
    ...(appliedElsewhere(app, ['spec', 'hostnames']) ? { hostnames: [...(hostnames ?? [])] } : {}),
    ...(maxConcurrentRequests !== undefined && appliedElsewhere(app, ['spec', 'maxConcurrentRequests']) ? { maxConcurrentRequests } : {}),
  };
}

/** Whether two records say the same (host names in order, as the app's spec keeps them). */
export function sameOptions(a: BuildDeployOptions | undefined, b: BuildDeployOptions | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const [ha, hb] = [a.hostnames ?? [], b.hostnames ?? []];
  return a.maxConcurrentRequests === b.maxConcurrentRequests && ha.length === hb.length && ha.every((h, i) => h === hb[i]);
}

/** A build's recorded options as the REST API shows them. */
export interface DeployOptionsView {
  hostnames: string[];
  max_concurrent_requests?: number;
}

export function deployOptionsView(options: BuildDeployOptions): DeployOptionsView {
  return { hostnames: [...(options.hostnames ?? [])], ...(options.maxConcurrentRequests !== undefined ? { max_concurrent_requests: options.maxConcurrentRequests } : {}) };
}
