import { describe, expect, it } from 'vitest';
import { DEFAULT_BUILD_LIMITS, type BuildRunSpec } from './build-runner.ts';
import { buildJob, type BuildJobSettings } from './build-job.ts';
import { foreignJob, isRunJob } from './job-ownership.ts';

const settings: BuildJobSettings = { namespace: 'cloudwright-builds', image: 'img', serviceAccountName: 'cloudwright-build', runAsUser: 10001, ttlSecondsAfterFinished: 600 };
const spec = (namespace: string, id: string): BuildRunSpec => ({
  id,
  namespace,
  build: 'web-0123456789ab',
  sourceUrl: 'http://s/source',
  outputUrl: 'http://s/output',
  command: 'npm run build',
  outputDirectory: 'dist',
  environment: {},
  limits: DEFAULT_BUILD_LIMITS,
});

describe('foreignJob', () => {
  const alice = spec('p-alice', 'web-0123456789ab-1-uid-a');

  it("accepts the run's own Job (followed after a restart)", () => {
    expect(foreignJob(buildJob(alice, settings), alice)).toBeUndefined();
  });

  it("refuses another project's Job of the same name", () => {
    const bob = spec('p-bob', alice.id);
    const reason = foreignJob(buildJob(bob, settings), alice);
    expect(reason).toMatch(/is another build's, not run web-0123456789ab-1-uid-a of p-alice\/web-0123456789ab/);
    expect(reason).not.toContain('p-bob'); // the other project is not named in this one's status
  });

  it('refuses a Job of another run of the same build, or one without annotations', () => {
    expect(foreignJob(buildJob(spec('p-alice', 'web-0123456789ab-1-uid-old'), settings), alice)).toMatch(/another build's/);
    expect(foreignJob({ metadata: { name: 'x' } }, alice)).toMatch(/another build's/);
  });
});

describe('isRunJob', () => {
  it('matches the run annotation, not the name', () => {
    const job = buildJob(spec('p-alice', 'run-a'), settings);
    expect(isRunJob(job, 'run-a')).toBe(true);
    expect(isRunJob({ ...job, metadata: { ...job.metadata, annotations: {} } }, 'run-a')).toBe(false);
  });
});
