// The chart on a real node: `helm install` of charts/cloudwright with the image `make image` built, on the
// local node (e2e/harness/kube-node.ts), with MinIO and moto on the node's address where pods reach them.
// Everything goes through Services as a user's would: an app created and deployed through the API's
// Service and answered through the runtime's; the chart's NetworkPolicies enforced (kube-router on the node):
// a tenant's pod reaches neither the runtime's status port nor cw-db's admin port, which cw-api and
// cw-operator reach, and an app's fetch of the platform by its in-cluster names is refused; then what a
// cluster admin does to an installation (scale, lose the operator's leader, upgrade, uninstall) with the app
// answering throughout.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { connectionFor, JOBS, loadKubeConnection, NAMESPACES, objectClient, RESOURCE_QUOTAS, ROLE_BINDINGS, SECRETS, type KubeObject, type ResourceRef } from '../src/kube/index.ts';
import { createLogger } from '../src/logging/log.ts';
import { S3UrlSigner } from '../src/object-store/s3-presigned-urls.ts';
import type { BuildRunSpec, RunResult } from '../operator/controllers/source-build/build-runner.ts';
import { buildJobSettingsFromEnv } from '../operator/controllers/source-build/job-runner-env.ts';
import { JobRunner } from '../operator/controllers/source-build/job-runner.ts';
import type { SourceBuild } from '../src/apis/v1alpha1/source-build.ts';
import { APP_SOURCES, REPOSITORIES, SOURCE_BUILDS } from '../src/platform/resources.ts';
import { mintToken } from '../git-server/auth/index.ts';
import { GitClient } from './harness/git-client.ts';
import { PROJECT_QUOTA_NAME, type ResourceQuota } from '../src/platform/project-quota.ts';
import { DATABASES } from '../src/platform/resources.ts';
import { ensureBucket } from '../src/object-store/s3-buckets.ts';
import { createMemberAccount, type MemberAccount } from './harness/accounts.ts';
import { mayDo, serviceAccount, type Access } from './harness/access-review.ts';
import { EGRESS_PROBE_WORKER, errorReference, refusalReason, type ProbeAnswer } from './harness/egress-probe.ts';
import { chartNetworkValues } from './harness/kube-node-config.ts';
import { hostFootprint, reclaimHost } from './harness/kube-node-host.ts';
import { builtImage, startKubeNode, type KubeNode } from './harness/kube-node.ts';
import { startMinio, type MinioServer } from './harness/minio.ts';
import { startMoto, type MotoServer } from './harness/moto.ts';
import { copyNextjsExample, NEXTJS_BUILD_COMMAND, NEXTJS_BUILD_ENV, NEXTJS_SERVED_TEXT } from './harness/nextjs-source.ts';
import { startNpmMirror, type NpmMirror } from './harness/npm-mirror.ts';
import { eventually, packWorker } from './harness/runtime-stack.ts';
import { repoRoot, toolPath } from './harness/tools.ts';

const exec = promisify(execFile);
const RELEASE = 'cloudwright';
const NAMESPACE = 'cloudwright';
const BASE_DOMAIN = 'apps.node.test';
const IMAGE_USER = 10001;
const BUCKETS = { artifacts: 'cloudwright', git: 'cloudwright-git', db: 'cloudwright-db' };
const PODS: ResourceRef = { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true };
const WORKLOADS = ['deployment/cloudwright-api', 'deployment/cloudwright-operator', 'deployment/cloudwright-runtime', 'deployment/cloudwright-git', 'statefulset/cloudwright-db'];

interface Pod extends KubeObject {
  spec: { nodeName?: string; containers?: { name: string; ports?: { name?: string; containerPort: number }[] }[] };
  status: {
    podIP?: string;
    phase?: string;
    conditions?: { type: string; status: string; reason?: string; lastTransitionTime?: string }[];
    containerStatuses?: { name: string; restartCount: number; ready: boolean; lastState?: { terminated?: { exitCode: number; reason?: string; finishedAt?: string } } }[];
  };
}

let node: KubeNode | undefined;
/** The start, kept so that a beforeAll timing out during it still stops the node. */
let starting: Promise<KubeNode> | undefined;
let minio: MinioServer;
let moto: MotoServer;
let npmMirror: NpmMirror;
let member: MemberAccount;
let stateDir: string;
let footprintBefore: ReturnType<typeof hostFootprint>;
let image: string;
let installMs = 0;
let stopped = false;
let failed = false;
const figures: Record<string, string> = {};

function theNode(): KubeNode {
  if (!node) throw new Error('the node is not running');
  return node;
}

async function helm(...args: string[]): Promise<string> {
  const { stdout } = await exec(toolPath('helm'), ['--kubeconfig', theNode().kubeconfig, ...args], { maxBuffer: 16 << 20 });
  return stdout;
}

async function getJson<T>(...args: string[]): Promise<T> {
  return JSON.parse(await theNode().kubectl('get', '-o', 'json', ...args)) as T;
}

/** The pods matching `selector`, leaving out those already being deleted (a rollout's old ones) unless asked. */
async function pods(selector: string, { terminating = false } = {}): Promise<Pod[]> {
  const all = (await getJson<{ items: Pod[] }>('pods', '-n', NAMESPACE, '-l', selector)).items;
  return terminating ? all : all.filter((pod) => !pod.metadata?.deletionTimestamp);
}

async function serviceUrl(name: string): Promise<string> {
  const service = await getJson<{ spec: { clusterIP: string; ports: { port: number }[] } }>('service', '-n', NAMESPACE, name);
  return `http://${service.spec.clusterIP}:${service.spec.ports[0]?.port}`;
}

/** A GET with a Host header (fetch will not send one of its own choosing). */
function get(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host }, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} (Host ${host}) timed out`)));
    req.on('error', reject);
    req.end();
  });
}

async function callApi(method: string, path: string, body?: Uint8Array | object): Promise<{ status: number; body: Record<string, unknown> }> {
  const raw = body instanceof Uint8Array;
  const res = await fetch(`${await serviceUrl('cloudwright-api')}${path}`, {
    method,
    headers: { authorization: `Bearer ${member.token}`, ...(body === undefined ? {} : { 'content-type': raw ? 'application/octet-stream' : 'application/json' }) },
    ...(body === undefined ? {} : { body: raw ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const appHost = () => `hello.${member.project}.${BASE_DOMAIN}`;

async function deployWorker(text: string): Promise<void> {
  const deploy = await callApi('POST', `/v1/projects/${member.project}/apps/hello/deployments`, packWorker(`export default { fetch() { return new Response(${JSON.stringify(text)}); } };\n`));
  expect(deploy.status, JSON.stringify(deploy.body)).toBe(200);
}

async function waitRolledOut(timeoutSeconds = 300): Promise<void> {
  for (const workload of WORKLOADS) await theNode().kubectl('rollout', 'status', '-n', NAMESPACE, workload, `--timeout=${timeoutSeconds}s`);
}

/** What a pod's `fetch` gets for each URL: the HTTP status, or the connection error's code. */
const PROBE_SCRIPT = `const answers = [];
for (const url of process.argv.slice(1)) {
  try {
    answers.push((await fetch(url, { signal: AbortSignal.timeout(5000), redirect: 'manual' })).status);
  } catch (err) {
    answers.push(err.cause?.code ?? err.name);
  }
}
console.log(JSON.stringify(answers));`;

/** Fetches `urls` from inside `target` (kubectl exec's pod or workload) in `namespace`, with the image's Node. */
async function probeFrom(namespace: string, target: string, urls: string[]): Promise<(number | string)[]> {
  const out = await theNode().kubectl('exec', '-n', namespace, target, '--', 'node', '--input-type=module', '-e', PROBE_SCRIPT, ...urls);
  return JSON.parse(out) as (number | string)[];
}

/** A pod of the platform's image that does nothing, in `namespace`, as a tenant could run one; resolves with its name once Ready. */
async function startTenantPod(namespace: string): Promise<string> {
  const name = 'tenant-probe';
  const restricted = { runAsNonRoot: true, runAsUser: IMAGE_USER, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } };
  await objectClient<KubeObject>(loadKubeConnection(theNode().kubeconfig), PODS).apply(
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace },
      spec: { containers: [{ name: 'probe', image, imagePullPolicy: 'Never', command: ['sleep', 'infinity'], securityContext: restricted }], terminationGracePeriodSeconds: 0 },
    } as KubeObject,
    { fieldManager: 'chart-node-test', force: true },
  );
  await theNode().kubectl('wait', '-n', namespace, '--for=condition=Ready', `pod/${name}`, '--timeout=60s');
  return name;
}

/** A build run as the operator makes it: its runner, its log and its end. */
interface BuildRun {
  log: string;
  finished: Promise<RunResult>;
  /** Resolves once the log holds `text`. */
  logged(text: string): Promise<void>;
}

let buildRunner: JobRunner | undefined;
let urlSigner: S3UrlSigner | undefined;

/** The JobRunner as cw-operator would run it: its ServiceAccount's token, the settings the chart gives it. */
async function jobRunner(): Promise<JobRunner> {
  if (buildRunner) return buildRunner;
  const token = (await theNode().kubectl('create', 'token', '-n', NAMESPACE, 'cloudwright-operator', '--duration=1h')).trim();
  const admin = new KubeConfig();
  admin.loadFromFile(theNode().kubeconfig);
  const cluster = admin.getCurrentCluster()!;
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name: 'operator', token }],
    contexts: [{ name: 'operator', cluster: cluster.name, user: 'operator' }],
    currentContext: 'operator',
  });
  type Deployment = { spec: { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } } };
  const env = (await getJson<Deployment>('-n', NAMESPACE, 'deployment/cloudwright-operator')).spec.template.spec.containers[0]?.env ?? [];
  const settings = buildJobSettingsFromEnv(Object.fromEntries(env.map((e) => [e.name, e.value])));
  if (!settings) throw new Error('the chart gives the operator no CW_BUILD_JOB_NAMESPACE');
  buildRunner = new JobRunner({ conn: connectionFor(config), settings, log: createLogger({ level: 'warn', write: (line) => void process.stderr.write(line) }) });
  return buildRunner;
}

/** The build's inputs in the bucket: a gzipped tar of `files`, and URLs presigned for its source and output. */
async function buildUrls(id: string, files: Record<string, string>): Promise<{ sourceUrl: string; outputUrl: string; output: () => Promise<Record<string, string>> }> {
  urlSigner ??= new S3UrlSigner({ config: minio.s3, bucket: BUCKETS.artifacts });
  const dir = mkdtempSync(join(stateDir, 'build-source-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  await exec('tar', ['-czf', join(dir, '..', `${id}.tar.gz`), '-C', dir, '.']);
  const put = await fetch(await urlSigner.presign(`builds/${id}/source.tar.gz`, 'PUT', 300), { method: 'PUT', body: readFileSync(join(dir, '..', `${id}.tar.gz`)) });
  expect(put.status).toBe(200);
  const outputUrl = await urlSigner.presign(`builds/${id}/output.tar`, 'PUT', 300);
  const output = async () => {
    const res = await fetch(await urlSigner!.presign(`builds/${id}/output.tar`, 'GET', 60));
    expect(res.status).toBe(200);
    const tarball = join(stateDir, `${id}-output.tar`);
    writeFileSync(tarball, Buffer.from(await res.arrayBuffer()));
    const out = mkdtempSync(join(stateDir, 'build-output-'));
    await exec('tar', ['-xf', tarball, '-C', out]);
    const names = (await exec('tar', ['-tf', tarball])).stdout.split('\n').filter((n) => n && !n.endsWith('/'));
    return Object.fromEntries(names.map((name) => [name.replace(/^\.\//, ''), readFileSync(join(out, name), 'utf8')]));
  };
  return { sourceUrl: await urlSigner.presign(`builds/${id}/source.tar.gz`, 'GET', 300), outputUrl, output };
}

/** Small bounds, so that the node (two cores, the platform on it) runs builds beside the platform. */
const BUILD_LIMITS = { cpuMillis: 250, memoryBytes: 256 * 2 ** 20, diskBytes: 512 * 2 ** 20, deadlineSeconds: 120 };

async function startBuild(
  id: string,
  command: string,
  files: Record<string, string> = { 'index.txt': 'hello\n' },
  limits = BUILD_LIMITS,
): Promise<BuildRun & { spec: BuildRunSpec; output: () => Promise<Record<string, string>> }> {
  const { sourceUrl, outputUrl, output } = await buildUrls(id, files);
  const spec: BuildRunSpec = {
    id,
    namespace: member.project,
    build: id.replace(/-\d+$/, ''),
    sourceUrl,
    outputUrl,
    command,
    outputDirectory: 'out',
    environment: { GREETING: 'from the build' },
    limits,
  };
  return Object.assign(await follow(await jobRunner(), spec), { spec, output });
}

async function follow(runner: JobRunner, spec: BuildRunSpec): Promise<BuildRun> {
  const waiters: { text: string; resolve: () => void }[] = [];
  let finish: (result: RunResult) => void = () => {};
  const run: BuildRun = {
    log: '',
    finished: new Promise((resolve) => (finish = resolve)),
    logged: (text) => (run.log.includes(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ text, resolve }))),
  };
  await runner.run(spec, {
    log(text) {
      run.log += text;
      for (const waiter of waiters.filter((w) => run.log.includes(w.text))) waiter.resolve();
    },
    finished: (result) => finish(result),
  });
  return run;
}

async function buildPod(id: string): Promise<Pod & { spec: Record<string, unknown> }> {
  const [pod] = (await getJson<{ items: (Pod & { spec: Record<string, unknown> })[] }>('pods', '-n', `${NAMESPACE}-builds`, '-l', `batch.kubernetes.io/job-name=${id}`)).items;
  if (!pod) throw new Error(`no pod for build ${id}`);
  return pod;
}

/**
 * A repository `name` of the member's project on the node's cw-git, Ready, and the app `app` connected to it by an
 * AppSource applied as kubectl would; a work tree to push from, and the remote with a write token.
 */
async function connectedRepository(name: string, app: string, build: object, environment?: object): Promise<{ git: GitClient; work: string; remote: string }> {
  const conn = loadKubeConnection(theNode().kubeconfig);
  const project = member.project;
  const APPLY = { fieldManager: 'kubectl', force: true };
  await objectClient<KubeObject & { spec: object }>(conn, REPOSITORIES).apply(
    { apiVersion: 'cloudwright.dev/v1alpha1', kind: 'Repository', metadata: { name, namespace: project }, spec: { owner: project, name } },
    APPLY,
  );
  await eventually(
    'the repository Ready',
    () => getJson<{ status?: { conditions?: { type: string; status: string }[] } }>('repositories.cloudwright.dev', '-n', project, name),
    (r) => r.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
    60_000,
  );
  expect((await callApi('POST', `/v1/projects/${project}/apps`, { name: app })).status).toBe(201);
  await objectClient<KubeObject & { spec: object }>(conn, APP_SOURCES).apply(
    {
      apiVersion: 'cloudwright.dev/v1alpha1',
      kind: 'AppSource',
      metadata: { name: app, namespace: project },
      spec: { app, repository: { owner: project, name }, build, ...(environment ? { environment } : {}) },
    },
    APPLY,
  );
  const git = await GitClient.create();
  const work = await git.workdir(name);
  await git.run(['init', '-q'], { cwd: work });
  const token = mintToken({ sub: 'ada', scopes: ['write'] }, 'n'.repeat(40));
  const remote = `${(await serviceUrl('cloudwright-git')).replace('http://', `http://git:${token}@`)}/${project}/${name}`;
  return { git, work, remote };
}

// A start that failed or timed out keeps the node's logs too (afterAll says where): a run whose tests were all
// skipped for it said nothing. (A hook timing out does not reject the hook's promise: hence a flag set at the end.)
let installed = false;
beforeAll(async () => {
  await installOnNode();
  installed = true;
}, 900_000);

/** Starts the node, the bucket, the DNS API and the npm mirror beside it, and installs the chart. */
async function installOnNode(): Promise<void> {
  // Apart from the run's directory, so that the node's logs outlive a failed run (afterAll says where).
  stateDir = mkdtempSync(join(tmpdir(), 'cw-chart-node-'));
  const built = builtImage('cloudwright-image');
  image = built.name;
  // The footprint to come back to is the machine's own, not what a node killed in an earlier run left.
  await reclaimHost();
  footprintBefore = hostFootprint();
  starting = startKubeNode({ stateDir, images: [built.archive] });
  node = await starting;
  figures['node start (control plane, containerd, image import, kubelet Ready)'] = `${node.startMs} ms`;
  [minio, moto, npmMirror] = await Promise.all([startMinio(stateDir, undefined, { host: node.address }), startMoto(stateDir, node.address), startNpmMirror(stateDir, node.address)]);
  for (const bucket of Object.values(BUCKETS)) await ensureBucket(minio.s3, bucket);

  const conn = loadKubeConnection(node.kubeconfig);
  const apply = (resource: ResourceRef, object: KubeObject) => objectClient<KubeObject>(conn, resource).apply(object, { fieldManager: 'chart-node-test', force: true });
  await apply(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  const credentials = minio.s3.credentials ?? { accessKeyId: '', secretAccessKey: '' };
  const secret = (name: string, stringData: Record<string, string>) => apply(SECRETS, { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NAMESPACE }, stringData } as KubeObject);
  await secret('cloudwright-s3', { CW_S3_ACCESS_KEY_ID: credentials.accessKeyId, CW_S3_SECRET_ACCESS_KEY: credentials.secretAccessKey });
  await secret('cloudwright-route53', { CW_ROUTE53_ACCESS_KEY_ID: 'AKIDNODETEST', CW_ROUTE53_SECRET_ACCESS_KEY: 'node-test-secret' });
  await secret('cloudwright-git', { 'token-secret': 'n'.repeat(40), AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey });
  await secret('cloudwright-db', { 'admin-token': 'd'.repeat(40) });
  // cw-db's volume: the node has no provisioner, so one an admin would create, owned by the image's user.
  await node.addVolume('cloudwright-db-local', '10Gi', IMAGE_USER);

  const [repository, tag] = image.split(':') as [string, string];
  // The runtime's pods reach DNS and the bucket on the node's address, as `make kube-node` writes it too.
  const policyValues = join(stateDir, 'network-policy.json');
  writeFileSync(policyValues, JSON.stringify(chartNetworkValues(minio.endpoint, npmMirror.port)));
  const started = performance.now();
  await helm(
    'install',
    RELEASE,
    join(repoRoot, 'charts', 'cloudwright'),
    '--namespace',
    NAMESPACE,
    '--wait',
    '--timeout=6m',
    '--values',
    policyValues,
    ...['image.repository', repository, 'image.tag', tag, 'image.pullPolicy', 'Never'].flatMap(pairs),
    ...['api.publicUrl', 'https://api.node.test', 'runtime.baseDomain', BASE_DOMAIN, 'runtime.publicScheme', 'http'].flatMap(pairs),
    ...['objectStore.endpoint', minio.endpoint, 'objectStore.bucket', BUCKETS.artifacts, 'objectStore.credentialsSecret', 'cloudwright-s3'].flatMap(pairs),
    ...['dns.route53.endpoint', moto.endpoint, 'dns.route53.credentialsSecret', 'cloudwright-route53', 'dns.resolver', '127.0.0.1:9'].flatMap(pairs),
    ...['git.bucket', BUCKETS.git, 'database.bucket', BUCKETS.db, 'database.publicUrl', 'https://db.node.test'].flatMap(pairs),
    // Room for the Next.js example's build (npm install, next build), yet scheduled beside the platform, whose
    // pods ask for 1.4 of this node's two cores: a build asks for a quarter core and bursts into idle CPU, up to
    // one core, which leaves the other to the test files running beside this one.
    ...['builds.limits.cpu', '1000m', 'builds.requests.cpu', '250m', 'builds.limits.memory', '2Gi', 'builds.limits.disk', '3Gi'].flatMap(pairs),
  );
  installMs = Math.round(performance.now() - started);
  figures['helm install to every workload Ready'] = `${installMs} ms`;
  member = await createMemberAccount(node.kubeconfig, 'node');
}

function pairs(value: string, index: number, all: string[]): string[] {
  return index % 2 === 0 ? ['--set-string', `${value}=${all[index + 1]}`] : [];
}

/**
 * A pod's working set (usage less inactive page cache, as the kubelet counts it), read from its memory cgroup
 * (cgroup v1, under the kubelet's kubepods/<qos class>/): exact at the moment of asking, where the kubelet's
 * summary lags a new pod by its housekeeping interval.
 */
function podWorkingSet(uid: string): number {
  const root = '/sys/fs/cgroup/memory/kubepods';
  const dir = [`${root}/pod${uid}`, `${root}/burstable/pod${uid}`, `${root}/besteffort/pod${uid}`].find((path) => existsSync(path));
  if (!dir) throw new Error(`no memory cgroup for pod ${uid}`);
  const usage = Number(readFileSync(`${dir}/memory.usage_in_bytes`, 'utf8'));
  const inactive = Number(/^total_inactive_file (\d+)$/m.exec(readFileSync(`${dir}/memory.stat`, 'utf8'))?.[1] ?? 0);
  return usage - inactive;
}

afterAll(async () => {
  buildRunner?.close();
  urlSigner?.destroy();
  console.log(
    `chart on a node:\n${Object.entries(figures)
      .map(([what, value]) => `  ${what}: ${value}`)
      .join('\n')}`,
  );
  try {
    // The cluster's Events (probe failures, kills) go with the logs a failed run keeps.
    if (!installed) failed = true;
    if (failed && node) writeFileSync(join(stateDir, 'node', 'events.txt'), await node.kubectl('get', 'events', '--all-namespaces', '--sort-by=.lastTimestamp').catch((err: Error) => err.message));
    if (node) await node.stop();
    else if (starting && !stopped) await (await starting.catch(() => undefined))?.stop();
  } finally {
    await Promise.all([minio?.service.stop(), moto?.service.stop(), npmMirror?.service.stop()]);
    if (failed) console.log(`chart on a node: ${installed ? 'a test failed' : 'the start failed'}; the node's logs are kept in ${stateDir}/node`);
    else rmSync(stateDir, { recursive: true, force: true });
  }
});

beforeEach(() => onTestFailed(() => void (failed = true)));

describe('the chart on a real node', () => {
  it('installs with helm: every Deployment and StatefulSet Ready on the node, from the imported image', async () => {
    for (const workload of WORKLOADS) {
      const object = await getJson<{ spec: { replicas: number }; status: { readyReplicas?: number } }>('-n', NAMESPACE, workload);
      expect(object.status.readyReplicas, workload).toBe(object.spec.replicas);
    }
    const all = await pods('app.kubernetes.io/part-of=cloudwright');
    expect(all.length).toBeGreaterThanOrEqual(8);
    for (const pod of all) expect(pod.spec.nodeName).toBe('cw-node');
  });

  it('serves an app created and deployed through the API Service, answered through the runtime Service', { timeout: 120_000 }, async () => {
    // A project just created: until the quota controller has counted its namespace, the API answers 503 "still
    // being counted; retry" (src/platform/project-quota.ts), which a client is to retry (likely ci-clone-88 and -93).
    const created = await eventually(
      'the app created once the project quota is counted',
      () => callApi('POST', `/v1/projects/${member.project}/apps`, { name: 'hello' }),
      (r) => !(r.status === 503 && /still being counted/.test(String(r.body.detail))),
      60_000,
    );
    expect(created.status).toBe(201);
    await deployWorker('installed on a node');
    const runtime = await serviceUrl('cloudwright-runtime');
    await eventually(
      'the app answers through the runtime Service',
      () => get(runtime, appHost()),
      (r) => r.status === 200 && r.body === 'installed on a node',
      60_000,
    );
  });

  it("fits each runtime shard's memory bound to the container: every shard at its bound and cw-runtime's heap within the pod's limit", async () => {
    const logs = await theNode().kubectl('logs', '-n', NAMESPACE, '-l', 'app.kubernetes.io/component=runtime', '--tail=-1');
    const serving = logs
      .split('\n')
      .filter((line) => line.includes('"msg":"serving apps"'))
      .map((line) => JSON.parse(line) as { shards: number; limits: { shardMemoryMb: number; configuredShardMemoryMb?: number } });
    expect(serving.length).toBeGreaterThan(0);
    for (const { shards, limits } of serving) {
      // The chart's 1536 MiB a shard, 2 GiB a pod and a 512 MiB heap: lowered, with room for the heap left.
      expect(limits.configuredShardMemoryMb).toBe(1536);
      expect(shards * limits.shardMemoryMb).toBeLessThanOrEqual(2048 - 512);
    }
    expect(logs).toContain("each shard's memory bound lowered so that every shard at its bound fits the container's memory limit");
  });

  it('holds each ServiceAccount to its work (SubjectAccessReviews): Secrets only in project namespaces for the operator and the runtime, only webhook keys for cw-git', async () => {
    const conn = loadKubeConnection(theNode().kubeconfig);
    // The Project controller bound the operator's project role in the member's namespace and wrote its quota,
    // which the cluster's quota controller counts.
    await eventually(
      "the operator's binding and the counted quota in the project namespace",
      async () =>
        [
          await objectClient<KubeObject>(conn, ROLE_BINDINGS).get(member.project, 'cloudwright-operator'),
          await objectClient<ResourceQuota & { status?: { used?: Record<string, string> } }>(conn, RESOURCE_QUOTAS).get(member.project, PROJECT_QUOTA_NAME),
          await objectClient<KubeObject>(conn, ROLE_BINDINGS).get(member.project, 'cloudwright-runtime'),
        ] as const,
      ([binding, quota, runtimeBinding]) => binding !== undefined && runtimeBinding !== undefined && quota?.status?.used?.['count/runtimeapps.cloudwright.dev'] === '1',
      60_000,
    );
    const secrets = (namespace?: string, verb = 'get') => ({ verb, group: '', resource: 'secrets', ...(namespace ? { namespace } : {}) });
    const table: [string, Access, boolean][] = [
      ['operator', secrets(member.project), true],
      ['operator', secrets(member.project, 'create'), true],
      ['operator', secrets(NAMESPACE), false],
      ['operator', secrets(undefined, 'list'), false],
      ['operator', secrets(`${NAMESPACE}-webhooks`, 'list'), false],
      ['operator', { verb: 'delete', group: '', resource: 'namespaces' }, false],
      ['git', secrets(`${NAMESPACE}-webhooks`, 'list'), true],
      ['git', secrets(NAMESPACE, 'list'), false],
      ['git', secrets(member.project, 'list'), false],
      ['api', secrets(`${NAMESPACE}-sign-ins`, 'list'), true],
      ['api', secrets(NAMESPACE), false],
      ['api', secrets(member.project), false],
      ['runtime', secrets(undefined, 'list'), false],
      // The runtime gets, by name, the app tokens of Databases in project namespaces, and nothing else.
      ['runtime', secrets(member.project), true],
      ['runtime', secrets(member.project, 'list'), false],
      ['runtime', secrets(NAMESPACE), false],
      ['db', secrets(NAMESPACE), false],
    ];
    for (const [component, access, allowed] of table) {
      expect(await mayDo(conn, serviceAccount(NAMESPACE, `cloudwright-${component}`), access), `${component} ${access.verb} ${access.resource} in ${access.namespace ?? 'every namespace'}`).toBe(
        allowed,
      );
    }
    // Through that binding, a Database applied with kubectl gets its token minted into a Secret of the project.
    await objectClient<KubeObject & { spec: object }>(conn, DATABASES).apply(
      { apiVersion: 'cloudwright.dev/v1alpha1', kind: 'Database', metadata: { name: 'notes', namespace: member.project }, spec: { displayName: 'notes' } },
      { fieldManager: 'kubectl', force: true },
    );
    type Database = { status?: { tokenSecretName?: string; conditions?: { type: string; status: string }[] } };
    const db = await eventually(
      'the Database Ready with its Secret',
      () => getJson<Database>('databases.cloudwright.dev', '-n', member.project, 'notes'),
      (d) => d.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
      60_000,
    );
    expect(db.status?.tokenSecretName).toBe('notes-database');
    // Outside a project's namespace the operator has no Secret to write: the Database says so.
    await objectClient<KubeObject & { spec: object }>(conn, DATABASES).apply(
      { apiVersion: 'cloudwright.dev/v1alpha1', kind: 'Database', metadata: { name: 'stray', namespace: 'default' }, spec: { displayName: 'stray' } },
      { fieldManager: 'kubectl', force: true },
    );
    await eventually(
      'the stray Database refused its Secret',
      () => getJson<Database>('databases.cloudwright.dev', '-n', 'default', 'stray'),
      (d) => d.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'False' && (c as { reason?: string }).reason === 'TokenSecretForbidden') === true,
      60_000,
    );
    expect((await getJson<{ items: KubeObject[] }>('secrets', '-n', 'default')).items.map((s) => s.metadata?.name)).not.toContain('stray-database');
    expect((await getJson<{ data: Record<string, string> }>('secret', '-n', member.project, 'notes-database')).data.DATABASE_TOKEN).toBeTruthy();
  });

  it(
    "enforces the NetworkPolicies: a tenant's pod reaches the runtime's entry point and cw-db's SQL port, but not the runtime's status port or cw-db's admin port, which cw-api and cw-operator reach",
    { timeout: 120_000 },
    async () => {
      const [runtime] = await pods('app.kubernetes.io/component=runtime');
      const [db] = await pods('app.kubernetes.io/component=database');
      const entry = `http://${runtime?.status.podIP}:8080/`;
      const status = `http://${runtime?.status.podIP}:8081/healthz`;
      const sql = `http://${db?.status.podIP}:8080/health`;
      const admin = `http://${db?.status.podIP}:8081/healthz`;
      // A pod in the tenant's own namespace: anything a project's member could run with kubectl.
      const tenant = await startTenantPod(member.project);
      // The allowed callers get through (once kube-router has their pods' addresses: it works from watches)…
      await eventually(
        'cw-api reaches the status port (its app routes asking for the token)',
        () => probeFrom(NAMESPACE, 'deploy/cloudwright-api', [status, `http://${runtime?.status.podIP}:8081/apps`]),
        (answers) => answers[0] === 200 && answers[1] === 401,
      );
      await eventually(
        "cw-operator reaches cw-db's admin port",
        () => probeFrom(NAMESPACE, 'deploy/cloudwright-operator', [admin]),
        (answers) => answers[0] === 200,
      );
      // …others reach the open ports, and are refused on the guarded ones: a tenant's pod, and a platform pod
      // (cw-git) that has no business there either.
      expect(await probeFrom(member.project, `pod/${tenant}`, [entry, sql, status, admin])).toEqual([404, 200, 'ECONNREFUSED', 'ECONNREFUSED']);
      expect(await probeFrom(NAMESPACE, 'deploy/cloudwright-git', [status, admin])).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
    },
  );

  it(
    "refuses an app's fetch of the platform by its in-cluster names and addresses, even where the runtime's own egress is allowed; cw-db's SQL Service alone is reached",
    { timeout: 120_000 },
    async () => {
      expect((await callApi('POST', `/v1/projects/${member.project}/apps`, { name: 'egress' })).status).toBe(201);
      const deploy = await callApi('POST', `/v1/projects/${member.project}/apps/egress/deployments`, packWorker(EGRESS_PROBE_WORKER));
      expect(deploy.status, JSON.stringify(deploy.body)).toBe(200);
      const runtimeService = await serviceUrl('cloudwright-runtime');
      const host = `egress.${member.project}.${BASE_DOMAIN}`;
      await eventually(
        'the probe app answers',
        () => get(runtimeService, host),
        (r) => r.body === 'probe ok',
        60_000,
      );
      const [runtime] = await pods('app.kubernetes.io/component=runtime');
      const minioPort = new URL(minio.endpoint).port;
      // CoreDNS answers <a-b-c-d>.<namespace>.pod.cluster.local with that address: a name for any address.
      const podName = (address: string) => `${address.replaceAll('.', '-')}.default.pod.cluster.local`;
      const runtimeIp = runtime?.status.podIP ?? '';
      // cw-db's pod itself, SQL port included: only its SQL Service's ClusterIP is allowed (the pod has the admin port).
      const [database] = await pods('app.kubernetes.io/component=database');
      const urls = [
        `http://${database?.status.podIP ?? ''}:8080/health`,
        'https://kubernetes.default.svc/version',
        'https://10.96.0.1/version',
        `http://cloudwright-db-admin.${NAMESPACE}.svc/healthz`,
        `${await serviceUrl('cloudwright-db-admin')}/healthz`,
        `http://${podName(node!.address)}:${minioPort}/minio/health/live`,
        `${minio.endpoint}/minio/health/live`,
        `http://${podName(runtimeIp)}:8081/apps`,
        `http://${runtimeIp}:8081/apps`,
        `http://${podName('169.254.169.254')}/latest/meta-data/`,
        'http://169.254.169.254/latest/meta-data/',
      ];
      const references = new Map<string, string>();
      for (const url of urls) {
        const res = await get(`${runtimeService}/?url=${encodeURIComponent(url)}`, host);
        const answer = JSON.parse(res.body) as ProbeAnswer;
        expect([url, answer.reached], res.body).toEqual([url, false]);
        // The filter's refusal has a reference (an error with none is a connection workerd tried).
        const reference = errorReference(answer);
        expect(reference, `${url}: ${res.body}`).toBeDefined();
        references.set(url, reference ?? '');
      }
      // The reasons, from the logs of whichever replica served each probe.
      const reasons = await eventually(
        "workerd's reasons in the runtime replicas' logs",
        async () => {
          const logs = await theNode().kubectl('logs', '-n', NAMESPACE, '-l', 'app.kubernetes.io/component=runtime', '--tail=-1', '--max-log-requests=10');
          return [...references].map(([url, reference]) => [url, refusalReason(logs, reference)] as const);
        },
        (found) => found.every(([, reason]) => reason !== undefined),
      );
      for (const [url, reason] of reasons) expect(reason, url).toMatch(/^connecting to .* is not allowed$/);
      // The one private destination apps have: cw-db's SQL Service (CW_RUNTIME_DATABASE_URL), through workerd's
      // filter and the runtime's NetworkPolicy, by name and by its ClusterIP.
      for (const url of [`http://cloudwright-db.${NAMESPACE}.svc/health`, `${await serviceUrl('cloudwright-db')}/health`]) {
        const res = await get(`${runtimeService}/?url=${encodeURIComponent(url)}`, host);
        expect([url, JSON.parse(res.body)], res.body).toEqual([url, { reached: true, status: 200 }]);
      }
    },
  );

  it(
    'builds in a Job on the node: the source fetched and the output put through presigned URLs, in a restricted pod with no token, its limits, priority and deadline, the platform out of its reach',
    { timeout: 240_000 },
    async () => {
      const [runtime] = await pods('app.kubernetes.io/component=runtime');
      const [db] = await pods('app.kubernetes.io/component=database');
      // What a build's code would try, all of it open to a pod without the policy: the runtime's entry point and
      // status port, cw-db's admin port.
      const probes = [`http://${runtime?.status.podIP}:8080/`, `http://${runtime?.status.podIP}:8081/healthz`, `http://${db?.status.podIP}:8081/healthz`];
      const probe = `for (const u of ${JSON.stringify(probes)}) {
  try { const r = await fetch(u, { signal: AbortSignal.timeout(3000) }); console.log('probe reached ' + u + ' ' + r.status); }
  catch (e) { console.log('probe refused ' + u + ' ' + (e.cause?.code ?? e.name)); }
}\n`;
      const command = [
        'mkdir -p out',
        'cp index.txt out/',
        'echo "$GREETING as $(id -u):$(id -g)" > out/who.txt',
        'test -e /var/run/secrets/kubernetes.io/serviceaccount && echo token-mounted || echo no-token',
        'echo "names: $(env | cut -d= -f1 | sort | tr "\\n" " ")"',
        'node probe.mjs',
        'echo built',
      ].join(' && ');
      const started = performance.now();
      const run = await startBuild('site-ok-1', command, { 'index.txt': 'hello\n', 'probe.mjs': probe });
      expect(await run.finished, run.log).toEqual({ outcome: 'succeeded' });
      figures['build Job: run to succeeded (pod start, fetch, command, upload)'] = `${Math.round(performance.now() - started)} ms`;
      expect(await run.output()).toEqual({ 'index.txt': 'hello\n', 'who.txt': 'from the build as 10001:10001\n' });
      expect(run.log).toContain('no-token');
      expect(run.log).toContain('[cloudwright] done');
      // The command sees the build's environment and what the pod always has, never the builder's URLs.
      const names =
        run.log
          .split('\n')
          .find((line) => line.startsWith('names: '))
          ?.slice(7)
          .trim()
          .split(' ') ?? [];
      expect(names).toContain('GREETING');
      expect(names.filter((name) => name.startsWith('CW_'))).toEqual([]);
      for (const url of probes) expect(run.log, url).toContain(`probe refused ${url} `);

      const pod = await buildPod('site-ok-1');
      const spec = pod.spec as unknown as {
        automountServiceAccountToken: boolean;
        priorityClassName: string;
        priority: number;
        enableServiceLinks: boolean;
        securityContext: object;
        volumes: { name: string; projected?: object; emptyDir?: object }[];
        containers: { securityContext: object; resources: object; volumeMounts: { mountPath: string }[] }[];
      };
      expect(spec).toMatchObject({ automountServiceAccountToken: false, enableServiceLinks: false, priorityClassName: 'cloudwright-build', priority: -100, serviceAccountName: 'cloudwright-build' });
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: IMAGE_USER, seccompProfile: { type: 'RuntimeDefault' } });
      const [container] = spec.containers;
      expect(container?.securityContext).toEqual({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      });
      // No token anywhere: no projected volume (the admission plugin adds one for a mounted token), no mount of it.
      expect(spec.volumes.filter((v) => v.projected)).toEqual([]);
      expect(container?.volumeMounts.map((m) => m.mountPath)).toEqual(['/workspace', '/tmp']);
      const bounds = { cpu: '250m', memory: String(256 * 2 ** 20), 'ephemeral-storage': String(512 * 2 ** 20) };
      expect(container?.resources).toEqual({ requests: bounds, limits: bounds });
      const job = await getJson<{ spec: { activeDeadlineSeconds: number; backoffLimit: number } }>('job', '-n', `${NAMESPACE}-builds`, 'site-ok-1');
      expect(job.spec).toMatchObject({ activeDeadlineSeconds: 120, backoffLimit: 0 });

      // Another runner (a restarted operator) asked for the same run follows the Job it finds: same result, the log again.
      const again = new JobRunner({
        conn: loadKubeConnection(theNode().kubeconfig),
        settings: buildJobSettingsFromEnv({ CW_BUILD_JOB_NAMESPACE: `${NAMESPACE}-builds`, CW_BUILD_JOB_IMAGE: image })!,
        log: createLogger({ level: 'error' }),
      });
      try {
        const followed = await follow(again, run.spec);
        expect(await followed.finished).toEqual({ outcome: 'succeeded' });
        expect(followed.log).toContain('[cloudwright] done');
      } finally {
        again.close();
      }
    },
  );

  it('fails a build whose command exits 1 with CommandFailed and its last line, one past its deadline with DeadlineExceeded; stop removes a Job', { timeout: 240_000 }, async () => {
    const [broken, slow, stopped] = await Promise.all([
      startBuild('site-broken-1', 'echo compiling >&2; echo "error: the widget is broken" >&2; exit 1'),
      startBuild('site-slow-1', 'echo sleeping; sleep 600', undefined, { ...BUILD_LIMITS, deadlineSeconds: 15 }),
      startBuild('site-stop-1', 'echo waiting; sleep 600'),
    ]);
    expect(await broken.finished, broken.log).toEqual({ outcome: 'failed', reason: 'CommandFailed', message: 'the command exited with 1: error: the widget is broken' });
    expect(broken.log).toContain('compiling');

    await stopped.logged('waiting');
    const runner = await jobRunner();
    await runner.stop('site-stop-1');
    expect(await stopped.finished).toEqual({ outcome: 'stopped' });
    expect(await objectClient(loadKubeConnection(theNode().kubeconfig), JOBS).get(`${NAMESPACE}-builds`, 'site-stop-1')).toBeUndefined();
    expect((await getJson<{ items: Pod[] }>('pods', '-n', `${NAMESPACE}-builds`, '-l', 'batch.kubernetes.io/job-name=site-stop-1')).items).toEqual([]);

    expect(await slow.finished, slow.log).toEqual({ outcome: 'failed', reason: 'DeadlineExceeded', message: 'the build ran past its deadline of 15 s' });
    expect(slow.log).toContain('sleeping');
    // Its watches would only complain through the tests that follow (the uninstall takes the namespace away).
    buildRunner?.close();
    buildRunner = undefined;
  });

  it('deploys a push to cw-git through the installed operator, its build a Job in the builds namespace', { timeout: 240_000 }, async () => {
    const project = member.project;
    // A build command, so the build is a Job (a source without one is packed by the operator itself).
    const { git, work, remote } = await connectedRepository('site', 'pushed', { command: 'mkdir -p out && cp worker.js out/', outputDirectory: 'out' });
    const commit = await git.commit(work, 'first', { 'worker.js': 'export default { fetch() { return new Response("pushed to the node"); } };\n' });
    const pushed = performance.now();
    await git.run(['push', '-q', remote, 'main'], { cwd: work });
    const runtime = await serviceUrl('cloudwright-runtime');
    const host = `pushed.${project}.${BASE_DOMAIN}`;
    await eventually(
      'the pushed commit served',
      () => get(runtime, host),
      (r) => r.status === 200 && r.body === 'pushed to the node',
      180_000,
    );
    figures['push → production served (installed operator, build Job)'] = `${Math.round(performance.now() - pushed)} ms`;
    const build = await objectClient<SourceBuild>(loadKubeConnection(theNode().kubeconfig), SOURCE_BUILDS).get(project, `pushed-${commit.slice(0, 12)}`);
    expect(build?.status).toMatchObject({ state: 'Succeeded', runner: 'job' });
    // Its Job ran in the builds namespace, labelled with the project (the TTL keeps it for a while).
    const jobs = await getJson<{ items: KubeObject[] }>('jobs', '-n', `${NAMESPACE}-builds`, '-l', `cloudwright.dev/project=${project},cloudwright.dev/build=pushed-${commit.slice(0, 12)}`);
    expect(jobs.items).toHaveLength(1);
  });

  it('builds the Next.js example pushed to cw-git in a Job on the node, its packages through the npm mirror, and serves it', { timeout: 600_000 }, async () => {
    const project = member.project;
    const { git, work, remote } = await connectedRepository(
      'next-site',
      'next',
      { command: NEXTJS_BUILD_COMMAND, outputDirectory: 'out' },
      // The only registry the build's NetworkPolicy lets it reach.
      { production: { NPM_CONFIG_REGISTRY: npmMirror.url, ...NEXTJS_BUILD_ENV } },
    );
    copyNextjsExample(work);
    await git.run(['add', '-A'], { cwd: work });
    await git.run(['commit', '-q', '-m', 'the Next.js example'], { cwd: work });
    const commit = await git.out(['rev-parse', 'HEAD'], work);
    const pushed = performance.now();
    await git.run(['push', '-q', remote, 'main'], { cwd: work });
    const runtime = await serviceUrl('cloudwright-runtime');
    const name = `next-${commit.slice(0, 12)}`;
    const sourceBuilds = objectClient<SourceBuild>(loadKubeConnection(theNode().kubeconfig), SOURCE_BUILDS);
    const served = await eventually(
      'the Next.js example served, or its build failed',
      async () => ({ page: await get(runtime, `next.${project}.${BASE_DOMAIN}`).catch(() => ({ status: 0, body: '' })), build: await sourceBuilds.get(project, name) }),
      ({ page, build }) => (page.status === 200 && page.body.includes(NEXTJS_SERVED_TEXT)) || build?.status?.state === 'Failed',
      540_000,
    );
    expect(served.build?.status, served.build?.status?.message).toMatchObject({ state: 'Succeeded', runner: 'job' });
    figures['push → Next.js example served (build Job: npm install through the mirror, OpenNext build)'] = `${Math.round(performance.now() - pushed)} ms`;
    // The build's pod (kept for the Job's TTL) ran with the install's bounds and no token.
    const [pod] = (
      await getJson<{ items: (Pod & { spec: { automountServiceAccountToken: boolean; containers: { resources: object }[] } })[] }>(
        'pods',
        '-n',
        `${NAMESPACE}-builds`,
        '-l',
        `cloudwright.dev/build=${name}`,
      )
    ).items;
    expect(pod?.spec.automountServiceAccountToken).toBe(false);
    // CPU in millicores, whichever way the apiserver writes the quantity (`1` or `1000m`).
    const millicores = (quantity: string | undefined) => (quantity?.endsWith('m') ? Number(quantity.slice(0, -1)) : Number(quantity) * 1000);
    const resources = pod?.spec.containers[0]?.resources as { requests: Record<string, string>; limits: Record<string, string> } | undefined;
    expect([millicores(resources?.requests.cpu), millicores(resources?.limits.cpu)]).toEqual([250, 1000]);
    expect(resources).toMatchObject({
      requests: { memory: String(2 * 2 ** 30), 'ephemeral-storage': String(3 * 2 ** 30) },
      limits: { memory: String(2 * 2 ** 30), 'ephemeral-storage': String(3 * 2 ** 30) },
    });
  });

  it('keeps the app answering while kubectl scale takes cw-runtime to three replicas, each serving it', { timeout: 300_000 }, async () => {
    const runtime = await serviceUrl('cloudwright-runtime');
    const answers: number[] = [];
    let scaling = true;
    const traffic = (async () => {
      while (scaling) answers.push((await get(runtime, appHost()).catch(() => ({ status: 0 }))).status);
    })();
    await theNode().kubectl('scale', '-n', NAMESPACE, 'deployment/cloudwright-runtime', '--replicas=3');
    await theNode().kubectl('rollout', 'status', '-n', NAMESPACE, 'deployment/cloudwright-runtime', '--timeout=240s');
    scaling = false;
    await traffic;
    expect(answers.length).toBeGreaterThan(10);
    expect(answers.filter((status) => status !== 200)).toEqual([]);
    const replicas = await pods('app.kubernetes.io/component=runtime');
    // Each replica's own word on its readiness (its /readyz says why it is not ready), so a failure explains itself.
    const statusPort = (pod: Pod) => pod.spec.containers?.[0]?.ports?.find((port) => port.name === 'status')?.containerPort;
    const readiness = await Promise.all(
      replicas.map(async (pod) => {
        const readyz = await get(`http://${pod.status.podIP}:${statusPort(pod)}/readyz`, '').catch((err: unknown) => ({ status: 0, body: String(err) }));
        return `${pod.metadata?.name}: ${JSON.stringify(pod.status.conditions?.filter((c) => c.type === 'Ready'))}, /readyz ${readyz.status} ${readyz.body}`;
      }),
    );
    expect(replicas.filter((pod) => pod.status.containerStatuses?.every((c) => c.ready)).length, readiness.join('\n')).toBe(3);
    for (const pod of replicas) expect((await get(`http://${pod.status.podIP}:8080`, appHost())).body, pod.metadata?.name).toBe('installed on a node');
  });

  it("hands the operator's leadership over when the leader's pod is deleted; a deploy made meanwhile converges", { timeout: 240_000 }, async () => {
    const lease = () => getJson<{ spec: { holderIdentity?: string } }>('lease', '-n', NAMESPACE, 'cloudwright-operator');
    const leader = (await lease()).spec.holderIdentity?.split('_')[0] ?? '';
    expect(leader).toMatch(/^cloudwright-operator-/);
    await theNode().kubectl('delete', 'pod', '-n', NAMESPACE, leader, '--wait=false');
    await deployWorker('deployed while the leader changed');
    const runtime = await serviceUrl('cloudwright-runtime');
    await eventually(
      'the new build answers',
      () => get(runtime, appHost()),
      (r) => r.body === 'deployed while the leader changed',
      60_000,
    );
    type RuntimeApp = { metadata: { generation: number }; status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] } };
    await eventually(
      'the RuntimeApp Ready at its new generation, marked by the new leader',
      () => getJson<RuntimeApp>('runtimeapps.cloudwright.dev', '-n', member.project, 'hello'),
      (app) => app.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === app.metadata.generation) === true,
      120_000,
    );
    // The old leader may have marked it during its drain, before it released the lease: the standby takes the
    // lease within its retry period.
    const next = await eventually(
      'the other operator pod holding the lease',
      async () => (await lease()).spec.holderIdentity?.split('_')[0] ?? '',
      (holder) => holder.startsWith('cloudwright-operator-') && holder !== leader,
      60_000,
    );
    expect(next).not.toBe(leader);
  });

  it('rolls the pods on helm upgrade with a changed value, keeping the scaled runtime count, the app answering after', { timeout: 420_000 }, async () => {
    const before = new Set((await pods('app.kubernetes.io/component=api')).map((pod) => pod.metadata?.uid));
    const started = performance.now();
    await helm('upgrade', RELEASE, join(repoRoot, 'charts', 'cloudwright'), '--namespace', NAMESPACE, '--reuse-values', '--set-string', 'api.trustProxy=10.244.0.0/24', '--wait', '--timeout=6m');
    figures['helm upgrade (API pods rolled) to Ready'] = `${Math.round(performance.now() - started)} ms`;
    await waitRolledOut();
    // rollout status returns while the old pods are still terminating (pods() leaves those out).
    const after = await pods('app.kubernetes.io/component=api');
    expect(after.length).toBe(2);
    for (const pod of after) expect(before.has(pod.metadata?.uid), pod.metadata?.name).toBe(false);
    // The count kubectl scale set stays: the upgrade does not put runtime.replicas back.
    expect((await getJson<{ spec: { replicas: number } }>('-n', NAMESPACE, 'deployment/cloudwright-runtime')).spec.replicas).toBe(3);
    expect((await get(await serviceUrl('cloudwright-runtime'), appHost())).body).toBe('deployed while the leader changed');
  });

  it('has restarted no container, and reports what each component uses at rest', { timeout: 60_000 }, async () => {
    for (const pod of await pods('app.kubernetes.io/part-of=cloudwright')) {
      for (const container of pod.status.containerStatuses ?? []) {
        if (container.restartCount === 0) continue;
        // The run before the restart explains it: its end and its last lines (gone once the release is uninstalled).
        const previous = await theNode()
          .kubectl('logs', '-n', NAMESPACE, pod.metadata?.name ?? '', '-c', container.name, '--previous', '--tail=40')
          .catch((err: unknown) => String(err));
        expect(container.restartCount, `${pod.metadata?.name}/${container.name}: ${JSON.stringify(container.lastState)}\n${previous}`).toBe(0);
      }
    }
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
    for (const pod of await pods('app.kubernetes.io/part-of=cloudwright')) {
      const bytes = podWorkingSet(pod.metadata?.uid ?? '');
      expect(bytes, pod.metadata?.name).toBeGreaterThan(0);
      figures[`memory at rest, pod ${pod.metadata?.name}`] = mib(bytes);
    }
    for (const { name, pid } of theNode().processes()) {
      const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
      expect(rss, name).toBeGreaterThan(0);
      figures[`memory at rest, node process ${name}`] = mib(rss);
    }
  });

  it('leaves only the CRDs and the data (the webhook namespace among it) after helm uninstall', { timeout: 240_000 }, async () => {
    await helm('uninstall', RELEASE, '--namespace', NAMESPACE, '--wait', '--timeout=3m');
    const kinds = 'deployments,statefulsets,services,configmaps,secrets,serviceaccounts,roles,rolebindings,poddisruptionbudgets,networkpolicies,clusterroles,clusterrolebindings';
    const left = await getJson<{ items: KubeObject[] }>(kinds, '--all-namespaces', '-l', 'app.kubernetes.io/part-of=cloudwright');
    expect(left.items.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([]);
    await eventually(
      'the release pods gone',
      () => pods('app.kubernetes.io/part-of=cloudwright'),
      (list) => list.length === 0,
      120_000,
    );
    // The data stays: the CRDs (and so every project's objects), cw-db's volume claim, and the buckets.
    const crds = await getJson<{ items: KubeObject[] }>('customresourcedefinitions');
    expect(crds.items.map((crd) => crd.metadata?.name)).toEqual(expect.arrayContaining(['runtimeapps.cloudwright.dev', 'projects.cloudwright.dev']));
    expect((await getJson<KubeObject>('runtimeapps.cloudwright.dev', '-n', member.project, 'hello')).metadata?.name).toBe('hello');
    expect((await getJson<{ items: KubeObject[] }>('pvc', '-n', NAMESPACE)).items.map((pvc) => pvc.metadata?.name)).toEqual(['data-cloudwright-db-0']);
    // The webhook namespace, where RepositoryWebhooks and their keys are (helm.sh/resource-policy: keep).
    expect((await getJson<KubeObject>('namespace', `${NAMESPACE}-webhooks`)).metadata?.deletionTimestamp).toBeUndefined();
    // The sign-ins namespace, where local accounts' password Secrets are (kept too).
    expect((await getJson<KubeObject>('namespace', `${NAMESPACE}-sign-ins`)).metadata?.deletionTimestamp).toBeUndefined();
    const s3 = new S3Client({ ...minio.s3 });
    const artifacts = await s3.send(new ListObjectsV2Command({ Bucket: BUCKETS.artifacts }));
    expect(artifacts.KeyCount ?? 0).toBeGreaterThan(0);
  });

  it('stops the node leaving the machine as it was: links, iptables rules, network namespaces, paths', { timeout: 240_000 }, async () => {
    const stopping = theNode();
    node = undefined;
    stopped = true;
    await stopping.stop();
    expect(hostFootprint()).toEqual(footprintBefore);
  });

  it('puts back what a node killed before its stop left, and leaves a running one alone', { timeout: 60_000 }, async () => {
    // A process that set the machine up as a node does, with a stand-in for the kubelet naming its directory:
    // the state a CI run cut short leaves.
    const killedDir = mkdtempSync(join(stateDir, 'killed-'));
    const owner = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { spawn } from 'node:child_process';
         import { setUpHost } from ${JSON.stringify(join(repoRoot, 'e2e/harness/kube-node-host.ts'))};
         await setUpHost(${JSON.stringify(killedDir)});
         const kubelet = spawn('sleep', ['600', ${JSON.stringify(join(killedDir, 'kubelet'))}], { detached: true, stdio: 'ignore' });
         console.log('set up', kubelet.pid);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [line] = (await once(owner.stdout, 'data')) as [Buffer];
    const standIn = Number(/^set up (\d+)/.exec(line.toString())?.[1]);
    expect(hostFootprint().links).toContain('cw-node0');

    await expect(reclaimHost()).rejects.toThrow(`another local node is running (pid ${owner.pid}`);
    expect(hostFootprint().links).toContain('cw-node0');

    owner.kill('SIGKILL');
    await once(owner, 'exit');
    await reclaimHost();
    expect(hostFootprint()).toEqual(footprintBefore);
    // Gone, or a zombie waiting for whoever inherited it to reap it.
    expect(existsSync(`/proc/${standIn}`) ? readFileSync(`/proc/${standIn}/stat`, 'utf8').split(') ')[1]?.[0] : 'gone').toMatch(/^(Z|gone)$/);
  });
});
