import { describe, expect, it } from 'vitest';
import { DEFAULT_BUILD_LIMITS } from './build-runner.ts';
import { buildJobSettingsFromEnv, buildLimitsFromEnv } from './job-runner-env.ts';

describe('buildJobSettingsFromEnv', () => {
  it('is off without CW_BUILDS_NAMESPACE, and needs an image with it', () => {
    expect(buildJobSettingsFromEnv({})).toBeUndefined();
    expect(() => buildJobSettingsFromEnv({ CW_BUILDS_NAMESPACE: 'builds' })).toThrow('CW_BUILDS_IMAGE is required');
  });

  it('reads the chart-written variables, with defaults for the rest', () => {
    expect(buildJobSettingsFromEnv({ CW_BUILDS_NAMESPACE: 'cloudwright-builds', CW_BUILDS_IMAGE: 'img:1' })).toEqual({
      namespace: 'cloudwright-builds',
      image: 'img:1',
      serviceAccountName: 'cloudwright-build',
      runAsUser: 10001,
      ttlSecondsAfterFinished: 600,
    });
    expect(
      buildJobSettingsFromEnv({
        CW_BUILDS_NAMESPACE: 'b',
        CW_BUILDS_IMAGE: 'img:1',
        CW_BUILDS_IMAGE_PULL_POLICY: 'Never',
        CW_BUILDS_PRIORITY_CLASS: 'cloudwright-build',
        CW_BUILDS_RUNTIME_CLASS: 'gvisor',
        CW_BUILDS_SERVICE_ACCOUNT: 'nobody',
        CW_BUILDS_RUN_AS_USER: '2000',
        CW_BUILDS_JOB_TTL: '1h',
      }),
    ).toEqual({
      namespace: 'b',
      image: 'img:1',
      imagePullPolicy: 'Never',
      priorityClassName: 'cloudwright-build',
      runtimeClassName: 'gvisor',
      serviceAccountName: 'nobody',
      runAsUser: 2000,
      ttlSecondsAfterFinished: 3600,
    });
  });

  it('refuses a bad value naming the variable', () => {
    const base = { CW_BUILDS_NAMESPACE: 'b', CW_BUILDS_IMAGE: 'i' };
    expect(() => buildJobSettingsFromEnv({ ...base, CW_BUILDS_RUN_AS_USER: '0' })).toThrow(/^CW_BUILDS_RUN_AS_USER must be/);
    expect(() => buildJobSettingsFromEnv({ ...base, CW_BUILDS_IMAGE_PULL_POLICY: 'Sometimes' })).toThrow(/^CW_BUILDS_IMAGE_PULL_POLICY must be one of Always, IfNotPresent, Never/);
    expect(() => buildJobSettingsFromEnv({ ...base, CW_BUILDS_RUNTIME_CLASS: 'G Visor' })).toThrow(/^CW_BUILDS_RUNTIME_CLASS must be a RuntimeClass name/);
    expect(() => buildJobSettingsFromEnv({ CW_BUILDS_NAMESPACE: 'Not_A_Namespace', CW_BUILDS_IMAGE: 'i' })).toThrow(/^CW_BUILDS_NAMESPACE must be a namespace name/);
  });
});

describe('buildLimitsFromEnv', () => {
  it('defaults to the port’s limits and reads quantities as the chart writes them', () => {
    expect(buildLimitsFromEnv({})).toEqual(DEFAULT_BUILD_LIMITS);
    expect(buildLimitsFromEnv({ CW_BUILDS_CPU: '1.5', CW_BUILDS_MEMORY: '1Gi', CW_BUILDS_DISK: '8Gi', CW_BUILDS_DEADLINE: '30m' })).toEqual({
      cpuMillis: 1500,
      memoryBytes: 2 ** 30,
      diskBytes: 8 * 2 ** 30,
      deadlineSeconds: 1800,
    });
    expect(buildLimitsFromEnv({ CW_BUILDS_CPU: '250m' }).cpuMillis).toBe(250);
  });

  it('refuses limits too small to build anything, or not quantities', () => {
    expect(() => buildLimitsFromEnv({ CW_BUILDS_CPU: '0' })).toThrow(/^CW_BUILDS_CPU must be a CPU quantity/);
    expect(() => buildLimitsFromEnv({ CW_BUILDS_CPU: 'lots' })).toThrow(/^CW_BUILDS_CPU must be/);
    expect(() => buildLimitsFromEnv({ CW_BUILDS_MEMORY: '1Mi' })).toThrow(/^CW_BUILDS_MEMORY must be/);
    expect(() => buildLimitsFromEnv({ CW_BUILDS_DEADLINE: '1s' })).toThrow(/^CW_BUILDS_DEADLINE must be/);
  });
});
