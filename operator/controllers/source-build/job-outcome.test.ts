import { describe, expect, it } from 'vitest';
import type { BuildLimits } from './build-runner.ts';
import type { Job } from './build-job.ts';
import { builderSays, runOutcome, type BuildPod } from './job-outcome.ts';

const limits: BuildLimits = { cpuMillis: 500, memoryBytes: 256 * 2 ** 20, diskBytes: 1024 * 2 ** 20, deadlineSeconds: 60 };
const job = (...conditions: { type: string; reason?: string; message?: string }[]): Job => ({ status: { conditions: conditions.map((c) => ({ status: 'True', ...c })) } });
const pod = (state: object, status: object = {}): BuildPod => ({ status: { containerStatuses: [{ name: 'build', state }], ...status } });
const exited = (exitCode: number, more: object = {}) => pod({ terminated: { exitCode, ...more } });

describe('runOutcome', () => {
  it('goes on while the Job has no final condition, however the pod is', () => {
    expect(runOutcome(job(), undefined, limits)).toBeUndefined();
    expect(runOutcome(job(), pod({ running: {} }), limits)).toBeUndefined();
    expect(runOutcome(job(), pod({ waiting: { reason: 'ContainerCreating' } }), limits)).toBeUndefined();
    // The pod has ended but the Job has not said so yet: its word decides (a deadline shows as FailureTarget first).
    expect(runOutcome(job(), exited(137), limits)).toBeUndefined();
    expect(runOutcome(job({ type: 'SuccessCriteriaMet' }), exited(0), limits)).toBeUndefined();
  });

  it('succeeds once the Job is Complete', () => {
    expect(runOutcome(job({ type: 'SuccessCriteriaMet' }, { type: 'Complete' }), exited(0), limits)).toEqual({ outcome: 'succeeded' });
  });

  it("names the failed step from the builder's exit code, with its last line, and for a command its output's last line", () => {
    const tail = '[cloudwright] running: make\nsrc/a.c:3: error: boom\n[cloudwright] the command exited with 2\n';
    expect(runOutcome(job({ type: 'FailureTarget', reason: 'BackoffLimitExceeded' }), exited(11, { message: tail }), limits)).toEqual({
      outcome: 'failed',
      reason: 'CommandFailed',
      message: 'the command exited with 2: src/a.c:3: error: boom',
    });
    // Without a termination message, from the log the runner read.
    expect(runOutcome(job({ type: 'Failed', reason: 'BackoffLimitExceeded' }), exited(11), limits, tail)).toMatchObject({
      reason: 'CommandFailed',
      message: 'the command exited with 2: src/a.c:3: error: boom',
    });
    const cases: [number, string, string][] = [
      [10, 'SourceUnavailable', 'cannot fetch the source: status 403'],
      [12, 'OutputInvalid', 'the output directory dist does not exist after the build'],
      [13, 'RunnerFailed', 'cannot upload the output: status 403'],
    ];
    for (const [code, reason, said] of cases) {
      expect(runOutcome(job({ type: 'Failed' }), exited(code, { message: `[cloudwright] fetching\n[cloudwright] ${said}\n` }), limits)).toEqual({ outcome: 'failed', reason, message: said });
    }
    expect(runOutcome(job({ type: 'Failed' }), exited(1, { reason: 'Error' }), limits)).toEqual({ outcome: 'failed', reason: 'RunnerFailed', message: 'the builder ended with exit code 1 (Error)' });
  });

  it('tells a deadline from a run that never started before it', () => {
    const deadline = job({ type: 'FailureTarget', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' });
    expect(runOutcome(deadline, pod({ running: {} }), limits)).toEqual({ outcome: 'failed', reason: 'DeadlineExceeded', message: 'the build ran past its deadline of 60 s' });
    expect(runOutcome(deadline, exited(137, { reason: 'Error' }), limits)).toMatchObject({ reason: 'DeadlineExceeded' });
    const unschedulable = pod({}, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available: 1 Insufficient cpu.' }] });
    expect(runOutcome(deadline, unschedulable, limits)).toEqual({
      outcome: 'failed',
      reason: 'RunnerFailed',
      message: 'the build did not start within its deadline of 60 s: its pod was never scheduled: 0/1 nodes are available: 1 Insufficient cpu.',
    });
    expect(runOutcome(deadline, undefined, limits)).toMatchObject({ reason: 'RunnerFailed', message: expect.stringContaining('no pod was created') });
  });

  it('reports an out-of-memory kill and an eviction for disk as ResourceLimitExceeded, whatever the exit code', () => {
    expect(runOutcome(job({ type: 'Failed' }), exited(11, { reason: 'OOMKilled' }), limits)).toEqual({
      outcome: 'failed',
      reason: 'ResourceLimitExceeded',
      message: 'the build ran out of memory (its limit is 256 MiB)',
    });
    const evicted = pod({ terminated: { exitCode: 137 } }, { phase: 'Failed', reason: 'Evicted', message: 'Usage of EmptyDir volume "workspace" exceeds the limit "1Gi". ' });
    expect(runOutcome(job({ type: 'Failed' }), evicted, limits)).toEqual({
      outcome: 'failed',
      reason: 'ResourceLimitExceeded',
      message: 'the build used more than its disk of 1024 MiB (evicted: Usage of EmptyDir volume "workspace" exceeds the limit "1Gi".)',
    });
    const pressure = pod({}, { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' });
    expect(runOutcome(job({ type: 'Failed' }), pressure, limits)).toMatchObject({ reason: 'RunnerFailed', message: "the build's pod was evicted: The node was low on resource: memory." });
  });

  it('fails at once, not at the deadline, when the image cannot be had or the container cannot be made', () => {
    expect(runOutcome(job(), pod({ waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"' } }), limits)).toEqual({
      outcome: 'failed',
      reason: 'RunnerFailed',
      message: 'the build could not start: ImagePullBackOff: Back-off pulling image "x"',
    });
    expect(runOutcome(job(), pod({ waiting: { reason: 'ErrImageNeverPull' } }), limits)).toMatchObject({ reason: 'RunnerFailed' });
  });

  it('keeps a message to one bounded line', () => {
    const long = `[cloudwright] ${'x'.repeat(2000)}\n`;
    const result = runOutcome(job({ type: 'Failed' }), exited(10, { message: long }), limits);
    expect(result?.outcome === 'failed' && result.message.length).toBe(500);
    expect(builderSays('no builder line here')).toEqual({});
  });
});
