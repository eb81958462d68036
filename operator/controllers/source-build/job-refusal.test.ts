import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../../src/kube/index.ts';
import type { Job } from './build-job.ts';
import { jobRefusal } from './job-refusal.ts';

const job: Job = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'build-1' },
  spec: {
    template: {
      spec: {
        containers: [
          {
            name: 'build',
            env: [
              { name: 'API_KEY', value: 'sk-secret-value' },
              { name: 'BAD=NAME', value: 'x' },
            ],
          },
        ],
      },
    },
  },
};

describe('jobRefusal', () => {
  it('names the fields the apiserver refused, an environment variable by its name, and never quotes a value', () => {
    const status = {
      kind: 'Status',
      code: 422,
      reason: 'Invalid',
      message: 'Job.batch "build-1" is invalid: spec.template.spec.containers[0].env[1].name: Invalid value: "BAD=NAME"; env[0].value: "sk-secret-value"',
      details: {
        causes: [
          { field: 'spec.template.spec.containers[0].env[1].name', reason: 'FieldValueInvalid', message: 'Invalid value: "sk-secret-value"' },
          { field: 'spec.template.spec.containers[0].resources.limits.memory', reason: 'FieldValueInvalid' },
        ],
      },
    };
    const message = jobRefusal(KubeApiError.fromResponse(422, JSON.stringify(status)), job);
    expect(message).toBe(
      'the cluster refused the build\'s Job: Invalid: the environment variable "BAD=NAME" (FieldValueInvalid); spec.template.spec.containers[0].resources.limits.memory (FieldValueInvalid)',
    );
    expect(message).not.toContain('sk-secret');
  });

  it('says a Job too large for the apiserver is', () => {
    expect(jobRefusal(KubeApiError.fromResponse(413, 'Request entity too large: limit is 3145728'), job)).toBe(
      "the cluster refused the build's Job: too large (the build environment is the part that grows)",
    );
  });
});
