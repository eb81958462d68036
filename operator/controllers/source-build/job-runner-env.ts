// The operator's CW_BUILDS_* variables (the chart's `builds.*` values): where and as what build Jobs run, and
// the limits each build gets. Read once at start; a bad value stops the operator with one line naming it.
import { isNamespace } from '../../../src/config/checks.ts';
import { configError, EnvReader, type Env } from '../../../src/config/env.ts';
import { DEFAULT_BUILD_LIMITS, type BuildLimits } from './build-runner.ts';
import type { BuildJobSettings } from './build-job.ts';

const DNS_SUBDOMAIN = (text: string) => text.length <= 253 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(text);

/**
 * The Job runner's settings, or `undefined` without CW_BUILDS_NAMESPACE (builds then run where the operator
 * is, through the local runner). CW_BUILDS_IMAGE is required with it.
 */
export function buildJobSettingsFromEnv(env: Env): BuildJobSettings | undefined {
  const read = new EnvReader(env);
  const namespace = read.matching('CW_BUILDS_NAMESPACE', undefined, isNamespace, 'a namespace name');
  if (!namespace) return undefined;
  const priorityClassName = read.matching('CW_BUILDS_PRIORITY_CLASS', undefined, DNS_SUBDOMAIN, 'a PriorityClass name');
  const runtimeClassName = read.matching('CW_BUILDS_RUNTIME_CLASS', undefined, DNS_SUBDOMAIN, 'a RuntimeClass name');
  const imagePullPolicy = read.optional('CW_BUILDS_IMAGE_PULL_POLICY') ? read.oneOf('CW_BUILDS_IMAGE_PULL_POLICY', ['Always', 'IfNotPresent', 'Never'], 'IfNotPresent') : undefined;
  return {
    namespace,
    image: read.required('CW_BUILDS_IMAGE', 'the image build Jobs run: node and tar in it'),
    serviceAccountName: read.matching('CW_BUILDS_SERVICE_ACCOUNT', 'cloudwright-build', DNS_SUBDOMAIN, 'a ServiceAccount name'),
    runAsUser: read.integer('CW_BUILDS_RUN_AS_USER', 10001, { min: 1, max: 2 ** 31 - 1 }),
    ttlSecondsAfterFinished: read.durationMs('CW_BUILDS_JOB_TTL', 600_000, { min: 0, max: 30 * 86_400_000 }) / 1000,
    ...(imagePullPolicy ? { imagePullPolicy } : {}),
    ...(priorityClassName ? { priorityClassName } : {}),
    ...(runtimeClassName ? { runtimeClassName } : {}),
  };
}

/** Millicores from a Kubernetes CPU quantity: `500m`, `1`, `1.5`. */
function cpuMillis(read: EnvReader, name: string, fallback: number): number {
  const raw = read.optional(name);
  if (raw === undefined) return fallback;
  const match = /^(\d{1,6}(\.\d{1,3})?)(m?)$/.exec(raw);
  const value = match ? Math.round(Number(match[1]) * (match[3] ? 1 : 1000)) : NaN;
  if (!(value >= 1)) throw configError(name, raw, 'a CPU quantity of at least 1m (500m, 1, 1.5)');
  return value;
}

/** Each build's limits: CW_BUILDS_CPU (a CPU quantity), CW_BUILDS_MEMORY and CW_BUILDS_DISK (sizes), CW_BUILDS_DEADLINE (a duration). */
export function buildLimitsFromEnv(env: Env): BuildLimits {
  const read = new EnvReader(env);
  return {
    cpuMillis: cpuMillis(read, 'CW_BUILDS_CPU', DEFAULT_BUILD_LIMITS.cpuMillis),
    memoryBytes: read.bytes('CW_BUILDS_MEMORY', DEFAULT_BUILD_LIMITS.memoryBytes, { min: 64 * 2 ** 20 }),
    diskBytes: read.bytes('CW_BUILDS_DISK', DEFAULT_BUILD_LIMITS.diskBytes, { min: 64 * 2 ** 20 }),
    deadlineSeconds: Math.ceil(read.durationMs('CW_BUILDS_DEADLINE', DEFAULT_BUILD_LIMITS.deadlineSeconds * 1000, { min: 10_000, max: 24 * 3_600_000 }) / 1000),
  };
}
