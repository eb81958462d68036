// Deploy options belong to a deployment (the spec: "a per-deployment option set at deploy time"): a deploy
// sets them all, an option left out meaning its default, and its Build records them so that a rollback to
// that build serves it as it was deployed. An option a GitOps tool applies is that tool's: deploys and rollbacks
// keep the app's value, and a deploy asking for another is refused.
import type { BuildDeployOptions } from '../apis/v1alpha1/build.ts';
import type { RuntimeApp, RuntimeAppSpec } from '../apis/v1alpha1/runtime-app.ts';
import { appliedElsewhere, refuseSettingApplied } from './applied-elsewhere.ts';

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

/** The deploy options a GitOps tool may apply (`spec` fields of a RuntimeApp). */
const OPTION_FIELDS = ['hostnames', 'maxConcurrentRequests'] as const;

/**
 * `spec` with each deploy option a GitOps tool applies as `app` has it, exactly (git's `hostnames: []` stays `[]`,
 * a name the deploy's own checks would drop or refuse stays), so that a deploy or rollback changes none of them.
 */
export function keepingApplied(app: RuntimeApp, spec: RuntimeAppSpec): RuntimeAppSpec {
  const { hostnames, maxConcurrentRequests, ...rest } = spec;
  const kept = {
    hostnames: appliedElsewhere(app, ['spec', 'hostnames']) ? app.spec.hostnames : hostnames,
    maxConcurrentRequests: appliedElsewhere(app, ['spec', 'maxConcurrentRequests']) ? app.spec.maxConcurrentRequests : maxConcurrentRequests,
  };
  return {
    ...rest,
    ...(kept.hostnames !== undefined ? { hostnames: kept.hostnames } : {}),
    ...(kept.maxConcurrentRequests !== undefined ? { maxConcurrentRequests: kept.maxConcurrentRequests } : {}),
  };
}

/**
 * Refuses (409) a deploy asking for another value of an option a GitOps tool applies; `asked`: what the request
 * gave (host names as parsed, in any order: the same names as git's are not another value).
 */
export function refuseAskedApplied(app: RuntimeApp, asked: BuildDeployOptions): void {
  const names = (list: readonly string[] | undefined) => [...new Set(list ?? [])].sort().join(',');
  const differs = {
    hostnames: asked.hostnames !== undefined && names(asked.hostnames) !== names(app.spec.hostnames),
    maxConcurrentRequests: asked.maxConcurrentRequests !== undefined && asked.maxConcurrentRequests !== app.spec.maxConcurrentRequests,
  };
  refuseSettingApplied(
    app,
    OPTION_FIELDS.filter((field) => differs[field]).map((field) => ['spec', field]),
  );
}

/**
 * Refuses (409) making another build active on an app whose `activeBuildId` a GitOps tool applies: push to deploy
 * asks before it builds, as a deploy asks before its upload is read.
 */
export function refuseActivationApplied(app: RuntimeApp): void {
  refuseSettingApplied(app, [['spec', 'activeBuildId']]);
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
