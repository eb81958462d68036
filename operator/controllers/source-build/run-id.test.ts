import { describe, expect, it } from 'vitest';
import type { SourceBuild } from '../../../src/apis/v1alpha1/source-build.ts';
import { jobName } from './build-job.ts';
import { runId } from './run-id.ts';

const build = (namespace: string, uid: string, name = 'web-0123456789ab'): SourceBuild => ({ metadata: { namespace, name, uid }, spec: {}, status: { attempts: 1 } }) as unknown as SourceBuild;

describe('runId', () => {
  it('differs for two projects whose builds share a name', () => {
    const a = runId(build('p-alice', '0f6b7d1e-4a7c-4c1e-9a57-1d2f7f0e0a01'));
    const b = runId(build('p-bob', '5c2e9b44-8d3a-4f6e-b1c0-7e9a2d4c6b02'));
    expect(a).not.toBe(b);
    expect(jobName(a)).not.toBe(jobName(b));
  });

  it('gives a Job name that is a DNS label, even for the longest build name', () => {
    const id = runId(build('p-alice', '0f6b7d1e-4a7c-4c1e-9a57-1d2f7f0e0a01', `${'a'.repeat(240)}-0123456789ab`));
    expect(jobName(id)).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    expect(jobName(id)).toBe(jobName(id));
  });

  it('is the same for the same attempt of the same object (a restart follows it)', () => {
    expect(runId(build('p', 'u-1'))).toBe(runId(build('p', 'u-1')));
  });
});
