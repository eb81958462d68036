import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/env.ts';
import type { BuildRunner } from './build-runner.ts';
import { runnerFor } from './runner-for.ts';

describe('runnerFor', () => {
  it('refuses CW_BUILD_RUNNER=job without a Job runner, rather than running builds in the operator', () => {
    const attempt = () => runnerFor({ runner: 'job', workDir: '/tmp/cw' }, undefined);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/CW_BUILD_JOB_NAMESPACE/);
  });

  it('gives the Job runner for job, a local one for local', () => {
    const jobs = { kind: 'job' } as BuildRunner;
    expect(runnerFor({ runner: 'job', workDir: '/tmp/cw' }, () => jobs)).toBe(jobs);
    expect(runnerFor({ runner: 'local', workDir: '/tmp/cw' }, () => jobs).kind).toBe('local');
  });
});
