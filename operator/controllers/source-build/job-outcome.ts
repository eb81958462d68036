// What a build Job's state means for its run (job-runner.ts): pure, from the Job and its pod as the watches
// last saw them. `undefined` while the run is still going.
import type { KubeObject } from '../../../src/kube/index.ts';
import type { BuildLimits, RunFailureReason, RunResult } from './build-runner.ts';
import { BUILDER_EXIT } from './builder-script.ts';
import { BUILD_CONTAINER, type Job } from './build-job.ts';

interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode: number; reason?: string; message?: string; signal?: number };
}

export interface BuildPod extends KubeObject {
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    containerStatuses?: { name: string; state?: ContainerState }[];
  };
}

/** Waiting reasons that do not pass by waiting: the run fails at once rather than at its deadline. */
const STUCK = new Set(['ErrImageNeverPull', 'ImagePullBackOff', 'InvalidImageName', 'CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

/** The builder's own lines start so (builder-script.ts). */
const BUILDER_PREFIX = '[cloudwright] ';
const MAX_MESSAGE = 500;

export function containerState(pod: BuildPod | undefined): ContainerState | undefined {
  return pod?.status?.containerStatuses?.find((status) => status.name === BUILD_CONTAINER)?.state;
}

/** Whether the build container has started (its log can be read). */
export function containerStarted(pod: BuildPod | undefined): boolean {
  const state = containerState(pod);
  return state?.running !== undefined || state?.terminated !== undefined;
}

const failed = (reason: RunFailureReason, message: string): RunResult => ({ outcome: 'failed', reason, message: oneLine(message) });

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
}

const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

/**
 * Why the builder said it stopped (its last own line), and for a failed command the command's last line of
 * output before it, from the end of the run's log (the termination message or what the runner read).
 */
export function builderSays(tail: string): { said?: string; lastOutput?: string } {
  const lines = tail.split('\n').filter((line) => line.trim() !== '');
  const index = lines.findLastIndex((line) => line.startsWith(BUILDER_PREFIX));
  if (index < 0) return {};
  const said = lines[index]?.slice(BUILDER_PREFIX.length);
  const lastOutput = lines.slice(0, index).findLast((line) => !line.startsWith(BUILDER_PREFIX));
  return { ...(said ? { said } : {}), ...(lastOutput ? { lastOutput } : {}) };
}

const EXIT_REASONS: Record<number, RunFailureReason> = {
  [BUILDER_EXIT.sourceUnavailable]: 'SourceUnavailable',
  [BUILDER_EXIT.commandFailed]: 'CommandFailed',
  [BUILDER_EXIT.outputMissing]: 'OutputInvalid',
  [BUILDER_EXIT.uploadFailed]: 'RunnerFailed',
};

/** The failure a terminated build container stands for. */
function terminatedFailure(terminated: NonNullable<ContainerState['terminated']>, limits: BuildLimits, logTail: string): RunResult {
  if (terminated.reason === 'OOMKilled') return failed('ResourceLimitExceeded', `the build ran out of memory (its limit is ${mib(limits.memoryBytes)})`);
  const reason = EXIT_REASONS[terminated.exitCode];
  const { said, lastOutput } = builderSays(terminated.message || logTail);
  if (!reason) return failed('RunnerFailed', `the builder ended with exit code ${terminated.exitCode}${terminated.reason ? ` (${terminated.reason})` : ''}${said ? `: ${said}` : ''}`);
  const fallback = `the builder failed with exit code ${terminated.exitCode}`;
  if (reason === 'CommandFailed' && lastOutput) return failed(reason, `${said ?? fallback}: ${lastOutput}`);
  return failed(reason, said ?? fallback);
}

function condition(job: Job, type: string) {
  return job.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/** Why a pod that never ran its container did not: its waiting reason, or the scheduler's word. */
function notStarted(pod: BuildPod | undefined): string {
  if (!pod) return "no pod was created for it (see the Job's events: a refused pod, such as an unknown runtimeClassName, shows as FailedCreate)";
  const waiting = containerState(pod)?.waiting;
  if (waiting?.reason) return `its container never started: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`;
  const unscheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (unscheduled) return `its pod was never scheduled: ${unscheduled.message ?? unscheduled.reason ?? 'no reason given'}`;
  return `its pod never started (${pod.status?.phase ?? 'no phase'})`;
}

/** The run's result from its Job and pod, or `undefined` while it goes on. */
export function runOutcome(job: Job, pod: BuildPod | undefined, limits: BuildLimits, logTail = ''): RunResult | undefined {
  if (condition(job, 'Complete')) return { outcome: 'succeeded' };
  // FailureTarget comes first (the controller then ends the pods), Failed once they are gone: either decides.
  const jobFailed = condition(job, 'FailureTarget') ?? condition(job, 'Failed');
  if (!jobFailed) {
    const waiting = containerState(pod)?.waiting;
    if (waiting?.reason && STUCK.has(waiting.reason)) return failed('RunnerFailed', `the build could not start: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`);
    return undefined;
  }
  const state = containerState(pod);
  if (jobFailed.reason === 'DeadlineExceeded') {
    if (!containerStarted(pod)) return failed('RunnerFailed', `the build did not start within its deadline of ${limits.deadlineSeconds} s: ${notStarted(pod)}`);
    return failed('DeadlineExceeded', `the build ran past its deadline of ${limits.deadlineSeconds} s`);
  }
  if (pod?.status?.reason === 'Evicted') {
    const message = pod.status.message?.trim() ?? '';
    if (/ephemeral|emptydir|storage/i.test(message)) return failed('ResourceLimitExceeded', `the build used more than its disk of ${mib(limits.diskBytes)} (evicted: ${message})`);
    return failed('RunnerFailed', `the build's pod was evicted: ${message}`);
  }
  if (state?.terminated && (state.terminated.exitCode !== 0 || state.terminated.reason === 'OOMKilled')) return terminatedFailure(state.terminated, limits, logTail);
  return failed('RunnerFailed', `the build's Job failed: ${jobFailed.reason ?? 'no reason'}${jobFailed.message ? `: ${jobFailed.message}` : ''}`);
}
