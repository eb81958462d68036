// The operator's CW_BUILD_JOB_* variables (the chart's `builds.*` values): where and as what build Jobs run.
// Read once at start with CW_BUILD_RUNNER=job; a bad value stops the operator with one line naming it. Each
// build's limits are CW_BUILD_CPU, CW_BUILD_MEMORY, CW_BUILD_DISK and CW_BUILD_DEADLINE (operator/build-env.ts).
import { isNamespace } from '../../../src/config/checks.ts';
import { EnvReader, type Env } from '../../../src/config/env.ts';
import type { BuildJobSettings } from './build-job.ts';

const DNS_SUBDOMAIN = (text: string) => text.length <= 253 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(text);

/** The Job runner's settings, or `undefined` without CW_BUILD_JOB_NAMESPACE. CW_BUILD_JOB_IMAGE is required with it. */
export function buildJobSettingsFromEnv(env: Env): BuildJobSettings | undefined {
  const read = new EnvReader(env);
  const namespace = read.matching('CW_BUILD_JOB_NAMESPACE', undefined, isNamespace, 'a namespace name');
  if (!namespace) return undefined;
  const priorityClassName = read.matching('CW_BUILD_JOB_PRIORITY_CLASS', undefined, DNS_SUBDOMAIN, 'a PriorityClass name');
  const runtimeClassName = read.matching('CW_BUILD_JOB_RUNTIME_CLASS', undefined, DNS_SUBDOMAIN, 'a RuntimeClass name');
  const cpuRequestMillis = read.optional('CW_BUILD_JOB_CPU_REQUEST') ? read.integer('CW_BUILD_JOB_CPU_REQUEST', 0, { min: 10, max: 64_000 }, 'millicores from 10 to 64000') : undefined;
  const imagePullPolicy = read.optional('CW_BUILD_JOB_IMAGE_PULL_POLICY') ? read.oneOf('CW_BUILD_JOB_IMAGE_PULL_POLICY', ['Always', 'IfNotPresent', 'Never'], 'IfNotPresent') : undefined;
  return {
    namespace,
    image: read.required('CW_BUILD_JOB_IMAGE', 'the image build Jobs run: node and tar in it'),
    serviceAccountName: read.matching('CW_BUILD_JOB_SERVICE_ACCOUNT', 'cloudwright-build', DNS_SUBDOMAIN, 'a ServiceAccount name'),
    runAsUser: read.integer('CW_BUILD_JOB_RUN_AS_USER', 10001, { min: 1, max: 2 ** 31 - 1 }),
    ttlSecondsAfterFinished: read.durationMs('CW_BUILD_JOB_TTL', 600_000, { min: 0, max: 30 * 86_400_000 }) / 1000,
    ...(cpuRequestMillis ? { cpuRequestMillis } : {}),
    ...(imagePullPolicy ? { imagePullPolicy } : {}),
    ...(priorityClassName ? { priorityClassName } : {}),
    ...(runtimeClassName ? { runtimeClassName } : {}),
  };
}
