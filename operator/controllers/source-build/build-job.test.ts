import { describe, expect, it } from 'vitest';
import { DEFAULT_BUILD_LIMITS, type BuildRunSpec } from './build-runner.ts';
import { BUILDER_ENV, BUILDER_SCRIPT } from './builder-script.ts';
import { buildJob, jobName, type BuildJobSettings } from './build-job.ts';

const settings: BuildJobSettings = {
  namespace: 'cloudwright-builds',
  image: 'localhost/cloudwright:abc',
  imagePullPolicy: 'Never',
  serviceAccountName: 'cloudwright-build',
  priorityClassName: 'cloudwright-build',
  runAsUser: 10001,
  ttlSecondsAfterFinished: 600,
};

const spec: BuildRunSpec = {
  id: 'web-3f2a9c1-1',
  namespace: 'p-acme',
  build: 'web-3f2a9c1',
  sourceUrl: 'http://s3.test/b/source.tar.gz?X-Amz-Signature=1',
  outputUrl: 'http://s3.test/b/output.tar?X-Amz-Signature=2',
  command: 'npm ci && npm run build',
  outputDirectory: 'dist',
  environment: { NODE_ENV: 'production', CW_BUILD_OUTPUT_URL: 'http://attacker.test/' },
  limits: { cpuMillis: 500, memoryBytes: 512 * 2 ** 20, diskBytes: 2 * 2 ** 30, deadlineSeconds: 300 },
};

type Container = { args: string[]; env: { name: string; value: string }[]; resources: unknown; securityContext: unknown; volumeMounts: unknown; terminationMessagePolicy: string };

describe('buildJob', () => {
  const job = buildJob(spec, settings);
  const pod = job.spec?.template?.spec as Record<string, unknown> & { containers: Container[] };
  const [container] = pod.containers as [Container];

  it('names the Job after the run, in the builds namespace, labelled with the project and the build (pods too)', () => {
    expect(job.metadata).toEqual({
      name: 'web-3f2a9c1-1',
      namespace: 'cloudwright-builds',
      annotations: { 'cloudwright.dev/build-run': 'web-3f2a9c1-1', 'cloudwright.dev/source-build': 'p-acme/web-3f2a9c1' },
      labels: { 'app.kubernetes.io/part-of': 'cloudwright', 'app.kubernetes.io/component': 'build', 'cloudwright.dev/project': 'p-acme', 'cloudwright.dev/build': 'web-3f2a9c1' },
    });
    expect(job.spec?.template?.metadata?.labels).toEqual(job.metadata?.labels);
  });

  it('runs one pod once, bounded by the deadline, removed after the TTL', () => {
    expect(job.spec).toMatchObject({ backoffLimit: 0, activeDeadlineSeconds: 300, ttlSecondsAfterFinished: 600 });
    expect(pod.restartPolicy).toBe('Never');
  });

  it('gives the pod no credential: no token mounted, no Service links, a ServiceAccount with no rights', () => {
    expect(pod).toMatchObject({ serviceAccountName: 'cloudwright-build', automountServiceAccountToken: false, enableServiceLinks: false, priorityClassName: 'cloudwright-build' });
    expect(pod).not.toHaveProperty('runtimeClassName');
    expect(buildJob(spec, { ...settings, runtimeClassName: 'gvisor' }).spec?.template?.spec).toMatchObject({ runtimeClassName: 'gvisor' });
  });

  it('holds the pod to the restricted profile, with a read-only root and the workspace (and /tmp) on a sized emptyDir', () => {
    expect(pod.securityContext).toEqual({ runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toEqual({
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.volumes).toEqual([{ name: 'workspace', emptyDir: { sizeLimit: String(2 * 2 ** 30) } }]);
    expect(container.volumeMounts).toEqual([
      { name: 'workspace', mountPath: '/workspace' },
      { name: 'workspace', mountPath: '/tmp', subPath: 'tmp' },
    ]);
  });

  it('requests and limits what the run may use: CPU, memory and disk', () => {
    const bounds = { cpu: '500m', memory: String(512 * 2 ** 20), 'ephemeral-storage': String(2 * 2 ** 30) };
    expect(container.resources).toEqual({ requests: bounds, limits: bounds });
  });

  it('asks the scheduler for less CPU than its limit when the installation says so, never for more', () => {
    const resources = (cpuRequestMillis: number) =>
      (buildJob(spec, { ...settings, cpuRequestMillis }).spec?.template?.spec as unknown as { containers: Container[] } | undefined)?.containers[0]?.resources;
    expect(resources(200)).toMatchObject({ requests: { cpu: '200m' }, limits: { cpu: '500m' } });
    expect(resources(2000)).toMatchObject({ requests: { cpu: '500m' }, limits: { cpu: '500m' } });
  });

  it("runs the builder script with the build's environment and the builder's variables, which a build's own cannot replace", () => {
    expect(container.args).toEqual(['node', '-e', BUILDER_SCRIPT]);
    expect(container.terminationMessagePolicy).toBe('FallbackToLogsOnError');
    expect(Object.fromEntries(container.env.map((v) => [v.name, v.value]))).toEqual({
      NODE_ENV: 'production',
      [BUILDER_ENV.sourceUrl]: spec.sourceUrl,
      [BUILDER_ENV.outputUrl]: spec.outputUrl,
      [BUILDER_ENV.command]: spec.command,
      [BUILDER_ENV.outputDirectory]: 'dist',
      [BUILDER_ENV.workspace]: '/workspace',
    });
    expect(container.env.filter((v) => v.name === BUILDER_ENV.outputUrl)).toHaveLength(1);
    const { command: _, ...noCommand } = spec;
    const [bare] = buildJob(noCommand, settings).spec!.template!.spec!.containers as [Container];
    expect(bare.env.map((v) => v.name)).not.toContain(BUILDER_ENV.command);
  });

  it('names the Job of a run id longer than a label by its start and a hash of the whole, the same every time; the full id in an annotation', () => {
    const id = `${'feature-x--web'.repeat(5)}-3f2a9c1e0b7d-1`;
    const build = id.slice(0, -2);
    const long = buildJob({ ...spec, id, build }, settings);
    const name = long.metadata?.name ?? '';
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toBe(jobName(id));
    expect(name.startsWith(id.slice(0, 40))).toBe(true);
    expect(jobName(`${id}x`)).not.toBe(name);
    expect(long.metadata?.annotations).toEqual({ 'cloudwright.dev/build-run': id, 'cloudwright.dev/source-build': `p-acme/${build}` });
    expect(long.metadata?.labels?.['cloudwright.dev/build']?.length).toBeLessThanOrEqual(63);
    expect(jobName('web-3f2a9c1-1')).toBe('web-3f2a9c1-1');
  });

  it('refuses a run id or build name that cannot name an object, and limits that are not positive integers', () => {
    expect(() => buildJob({ ...spec, id: 'Web_1' }, settings)).toThrow(/run's id must be an object name/);
    expect(() => buildJob({ ...spec, id: '' }, settings)).toThrow(/run's id must be an object name/);
    expect(() => buildJob({ ...spec, build: 'b/1' }, settings)).toThrow(/build's name must be an object name/);
    expect(() => buildJob({ ...spec, limits: { ...DEFAULT_BUILD_LIMITS, deadlineSeconds: 0 } }, settings)).toThrow(/deadlineSeconds must be a positive integer, got 0/);
    expect(() => buildJob({ ...spec, limits: { ...DEFAULT_BUILD_LIMITS, cpuMillis: 0.5 } }, settings)).toThrow(/cpuMillis/);
  });
});
