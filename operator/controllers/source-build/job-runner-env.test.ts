import { describe, expect, it } from 'vitest';
import { buildJobSettingsFromEnv } from './job-runner-env.ts';

describe('buildJobSettingsFromEnv', () => {
  it('is off without CW_BUILD_JOB_NAMESPACE, and needs an image with it', () => {
    expect(buildJobSettingsFromEnv({})).toBeUndefined();
    expect(() => buildJobSettingsFromEnv({ CW_BUILD_JOB_NAMESPACE: 'builds' })).toThrow('CW_BUILD_JOB_IMAGE is required');
  });

  it('reads the chart-written variables, with defaults for the rest', () => {
    expect(buildJobSettingsFromEnv({ CW_BUILD_JOB_NAMESPACE: 'cloudwright-builds', CW_BUILD_JOB_IMAGE: 'img:1' })).toEqual({
      namespace: 'cloudwright-builds',
      image: 'img:1',
      serviceAccountName: 'cloudwright-build',
      runAsUser: 10001,
      ttlSecondsAfterFinished: 600,
    });
    expect(
      buildJobSettingsFromEnv({
        CW_BUILD_JOB_NAMESPACE: 'b',
        CW_BUILD_JOB_IMAGE: 'img:1',
        CW_BUILD_JOB_IMAGE_PULL_POLICY: 'Never',
        CW_BUILD_JOB_PRIORITY_CLASS: 'cloudwright-build',
        CW_BUILD_JOB_RUNTIME_CLASS: 'gvisor',
        CW_BUILD_JOB_SERVICE_ACCOUNT: 'nobody',
        CW_BUILD_JOB_RUN_AS_USER: '2000',
        CW_BUILD_JOB_TTL: '1h',
        CW_BUILD_JOB_CPU_REQUEST: '250',
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
      cpuRequestMillis: 250,
    });
  });

  it('refuses a bad value naming the variable', () => {
    const base = { CW_BUILD_JOB_NAMESPACE: 'b', CW_BUILD_JOB_IMAGE: 'i' };
    expect(() => buildJobSettingsFromEnv({ ...base, CW_BUILD_JOB_RUN_AS_USER: '0' })).toThrow(/^CW_BUILD_JOB_RUN_AS_USER must be/);
    expect(() => buildJobSettingsFromEnv({ ...base, CW_BUILD_JOB_IMAGE_PULL_POLICY: 'Sometimes' })).toThrow(/^CW_BUILD_JOB_IMAGE_PULL_POLICY must be one of Always, IfNotPresent, Never/);
    expect(() => buildJobSettingsFromEnv({ ...base, CW_BUILD_JOB_CPU_REQUEST: '0.5' })).toThrow(/^CW_BUILD_JOB_CPU_REQUEST must be millicores/);
    expect(() => buildJobSettingsFromEnv({ ...base, CW_BUILD_JOB_RUNTIME_CLASS: 'G Visor' })).toThrow(/^CW_BUILD_JOB_RUNTIME_CLASS must be a RuntimeClass name/);
    expect(() => buildJobSettingsFromEnv({ CW_BUILD_JOB_NAMESPACE: 'Not_A_Namespace', CW_BUILD_JOB_IMAGE: 'i' })).toThrow(/^CW_BUILD_JOB_NAMESPACE must be a namespace name/);
  });
});
