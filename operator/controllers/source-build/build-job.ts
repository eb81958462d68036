// The Job one build run becomes (job-runner.ts): a pure function of the run and the installation's settings,
// so what a build's pod gets and does not get is read in one place (docs/push-to-deploy.md, "Build sandbox").
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../../src/kube/index.ts';
import type { BuildRunSpec } from './build-runner.ts';
import { BUILDER_ENV, BUILDER_SCRIPT } from './builder-script.ts';

/** Where and as what build pods run: the chart's `builds.*` values, through the operator's CW_BUILD_JOB_* variables. */
export interface BuildJobSettings {
  /** The builds namespace: no tenant has rights there, and its NetworkPolicy holds build pods' egress. */
  readonly namespace: string;
  /** An image with `node` (20 or later) and `tar`: the platform's own by default. */
  readonly image: string;
  readonly imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never' | undefined;
  /** A ServiceAccount with no rights, whose token is not mounted either. */
  readonly serviceAccountName: string;
  /** A PriorityClass below the runtime's, so builds wait or are preempted, never apps. */
  readonly priorityClassName?: string | undefined;
  /** A RuntimeClass for a sandboxing runtime (gVisor's `runsc`) where the nodes have one. */
  readonly runtimeClassName?: string | undefined;
  /** The user and group the build runs as (not root: the restricted profile). */
  readonly runAsUser: number;
  /** How long a finished Job and its pod (its log) stay before the TTL controller removes them. */
  readonly ttlSecondsAfterFinished: number;
  /**
   * The CPU a build pod asks the scheduler for, when less than its limit: it then runs on a node with that much
   * free and uses idle CPU up to the limit, yielding it to the pods that asked for it. Absent: the limit.
   */
  readonly cpuRequestMillis?: number | undefined;
}

/** Labels every build Job and pod carries; the runner watches by the first two. */
export const BUILD_LABELS = { 'app.kubernetes.io/part-of': 'cloudwright', 'app.kubernetes.io/component': 'build' } as const;
export const BUILD_SELECTOR = Object.entries(BUILD_LABELS)
  .map(([key, value]) => `${key}=${value}`)
  .join(',');
export const PROJECT_LABEL = 'cloudwright.dev/project';
export const BUILD_LABEL = 'cloudwright.dev/build';
/** The run's id and the SourceBuild's name in full, when the Job's name or the label had to shorten them. */
export const RUN_ANNOTATION = 'cloudwright.dev/build-run';
export const BUILD_ANNOTATION = 'cloudwright.dev/source-build';
/** The label the Job controller puts on a Job's pods. */
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

export const BUILD_CONTAINER = 'build';
/** The workspace (an emptyDir: the source, dependencies, output and /tmp together). */
export const WORKSPACE = '/workspace';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/**
 * The Job of run `id`: the id itself when it is a DNS label (the Job controller puts the Job's name in a label of
 * its pods, so 63 characters at most), else its first 52 characters and a hash of the whole, the same every time.
 */
export function jobName(id: string): string {
  if (DNS_LABEL.test(id)) return id;
  return `${id
    .slice(0, 52)
    .replace(/[-.]+$/, '')
    .replaceAll('.', '-')}-${createHash('sha256').update(id).digest('hex').slice(0, 10)}`;
}

/** A label value of at most 63 characters naming `text` (cut, with a hash, when longer). */
function labelValue(text: string): string {
  if (LABEL_VALUE.test(text)) return text;
  return `${text.slice(0, 52).replace(/[-_.]+$/, '')}-${createHash('sha256').update(text).digest('hex').slice(0, 10)}`;
}

export interface Job extends KubeObject {
  spec?: Record<string, unknown> & { template?: { metadata?: KubeObject['metadata']; spec?: PodSpec } };
  status?: {
    active?: number;
    failed?: number;
    succeeded?: number;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

interface PodSpec {
  [field: string]: unknown;
  containers: Record<string, unknown>[];
}

/** Throws for a run that cannot become a Job: its id and build must be object names, its limits positive integers. */
export function checkRunSpec(spec: BuildRunSpec): void {
  if (!OBJECT_NAME.test(spec.id)) throw new RangeError(`a build run's id must be an object name (lower-case letters, digits, '-' and '.'), got ${JSON.stringify(spec.id)}`);
  if (!OBJECT_NAME.test(spec.build)) throw new RangeError(`a build's name must be an object name, got ${JSON.stringify(spec.build)}`);
  const { cpuMillis, memoryBytes, diskBytes, deadlineSeconds } = spec.limits;
  for (const [name, value] of Object.entries({ cpuMillis, memoryBytes, diskBytes, deadlineSeconds })) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`a build's ${name} must be a positive integer, got ${value}`);
  }
}

/** The build's environment as the container gets it: its own variables, then the builder's (which win). */
function environment(spec: BuildRunSpec): { name: string; value: string }[] {
  const own = Object.entries(spec.environment)
    .filter(([name]) => !name.startsWith('CW_BUILD_'))
    .map(([name, value]) => ({ name, value }));
  const builder: Record<string, string> = {
    [BUILDER_ENV.sourceUrl]: spec.sourceUrl,
    [BUILDER_ENV.outputUrl]: spec.outputUrl,
    [BUILDER_ENV.outputDirectory]: spec.outputDirectory,
    [BUILDER_ENV.workspace]: WORKSPACE,
    ...(spec.command === undefined ? {} : { [BUILDER_ENV.command]: spec.command }),
  };
  return [...own, ...Object.entries(builder).map(([name, value]) => ({ name, value }))];
}

/** The Job of one run: one pod, never retried, under the restricted Pod Security profile and the run's limits. */
export function buildJob(spec: BuildRunSpec, settings: BuildJobSettings): Job {
  checkRunSpec(spec);
  const { limits } = spec;
  const labels = { ...BUILD_LABELS, [PROJECT_LABEL]: spec.namespace, [BUILD_LABEL]: labelValue(spec.build) };
  const bounds = { cpu: `${limits.cpuMillis}m`, memory: String(limits.memoryBytes), 'ephemeral-storage': String(limits.diskBytes) };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: jobName(spec.id), namespace: settings.namespace, labels, annotations: { [RUN_ANNOTATION]: spec.id, [BUILD_ANNOTATION]: `${spec.namespace}/${spec.build}` } },
    spec: {
      // A failed build is a result, not something to retry: the controller decides about another attempt.
      backoffLimit: 0,
      activeDeadlineSeconds: limits.deadlineSeconds,
      ttlSecondsAfterFinished: settings.ttlSecondsAfterFinished,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          serviceAccountName: settings.serviceAccountName,
          // No credential of any kind: no token, no Service environment variables naming the platform's pods.
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          ...(settings.priorityClassName ? { priorityClassName: settings.priorityClassName } : {}),
          ...(settings.runtimeClassName ? { runtimeClassName: settings.runtimeClassName } : {}),
          terminationGracePeriodSeconds: 5,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: settings.runAsUser,
            runAsGroup: settings.runAsUser,
            fsGroup: settings.runAsUser,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: BUILD_CONTAINER,
              image: settings.image,
              ...(settings.imagePullPolicy ? { imagePullPolicy: settings.imagePullPolicy } : {}),
              // Arguments, not a command: the image's entry point stays (tini in the platform's, which reaps
              // what the build leaves behind; node images' docker-entrypoint.sh runs them as given).
              args: ['node', '-e', BUILDER_SCRIPT],
              workingDir: WORKSPACE,
              env: environment(spec),
              resources: { requests: { ...bounds, cpu: `${Math.min(settings.cpuRequestMillis ?? limits.cpuMillis, limits.cpuMillis)}m` }, limits: bounds },
              // A failed run's last lines (2 KiB at most) stay on the pod's status: the reason is read from there.
              terminationMessagePolicy: 'FallbackToLogsOnError',
              securityContext: {
                runAsNonRoot: true,
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
              volumeMounts: [
                { name: 'workspace', mountPath: WORKSPACE },
                { name: 'workspace', mountPath: '/tmp', subPath: 'tmp' },
              ],
            },
          ],
          volumes: [{ name: 'workspace', emptyDir: { sizeLimit: String(limits.diskBytes) } }],
        },
      },
    },
  };
}
